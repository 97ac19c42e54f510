import Foundation
import Synchronization

/// Time-ordered UUIDs (version 7, RFC 9562), which keep B-tree inserts local and fast.
///
/// Layout: 48 bits of Unix time in milliseconds, version `0111`, then a 42-bit counter spread
/// over `rand_a` (12 bits) and the top 30 bits of `rand_b` (after variant `10`), then 32 random
/// bits. The counter starts at a random value below 2⁴¹ each new millisecond and increases by one
/// for every further id in the same millisecond (RFC 9562 §6.2, method 1); if it runs out, the
/// timestamp advances by a millisecond. A time up to one second earlier than the latest id's
/// (a clock step back, or threads racing) reuses the latest timestamp, so ids from one process
/// strictly increase in the order they are made. A time more than a second earlier gets its own
/// timestamp and a random counter, and does not disturb the sequence.
@usableFromInline package enum UUIDv7 {
    private struct State {
        var milliseconds: UInt64 = 0
        var counter: UInt64 = 0
        /// SplitMix64, seeded once from the system's generator: the random bits make ids of two
        /// processes differ, the timestamp and counter make them unique and ordered here, so a
        /// system call per id (getrandom) is not needed.
        var seed: UInt64 = {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }()

        mutating func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let state = Mutex(State())
    private static let counterLimit: UInt64 = 1 << 42
    private static let maximumStepBack: UInt64 = 1000

    /// Makes a new version-7 UUID for `date` (now by default).
    @usableFromInline package static func make(at date: Date = Date()) -> UUID {
        let seconds = date.timeIntervalSince1970
        let requested = seconds > 0 ? UInt64(min(seconds * 1000, Double(1 << 48 - 1)).rounded(.down)) : 0
        let (milliseconds, counter, random) = state.withLock { state -> (UInt64, UInt64, UInt32) in
            let random = UInt32(truncatingIfNeeded: state.next())
            if requested + maximumStepBack < state.milliseconds {
                return (requested, state.next() & (counterLimit / 2 - 1), random)
            }
            let requested = max(requested, state.milliseconds)
            if requested == state.milliseconds, state.counter + 1 < counterLimit {
                state.counter += 1
            } else if requested == state.milliseconds {
                state.milliseconds += 1
                state.counter = state.next() & (counterLimit / 2 - 1)
            } else {
                state.milliseconds = requested
                state.counter = state.next() & (counterLimit / 2 - 1)
            }
            return (state.milliseconds, state.counter, random)
        }
        return build(milliseconds: milliseconds, counter: counter, random: random)
    }

    /// The millisecond timestamp of a version-7 UUID, or nil for other versions.
    package static func date(of uuid: UUID) -> Date? {
        let bytes = uuid.uuid
        guard bytes.6 >> 4 == 7 else { return nil }
        let milliseconds = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5]
            .reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func build(milliseconds: UInt64, counter: UInt64, random: UInt32) -> UUID {
        let randA = UInt16(truncatingIfNeeded: counter >> 30)  // top 12 bits of the counter
        let randBHigh = UInt32(truncatingIfNeeded: counter & (1 << 30 - 1))  // low 30 bits
        let time = milliseconds & (1 << 48 - 1)
        return UUID(
            uuid: (
                UInt8(truncatingIfNeeded: time >> 40), UInt8(truncatingIfNeeded: time >> 32),
                UInt8(truncatingIfNeeded: time >> 24), UInt8(truncatingIfNeeded: time >> 16),
                UInt8(truncatingIfNeeded: time >> 8), UInt8(truncatingIfNeeded: time),
                0x70 | UInt8(truncatingIfNeeded: randA >> 8), UInt8(truncatingIfNeeded: randA),
                0x80 | UInt8(truncatingIfNeeded: randBHigh >> 24), UInt8(truncatingIfNeeded: randBHigh >> 16),
                UInt8(truncatingIfNeeded: randBHigh >> 8), UInt8(truncatingIfNeeded: randBHigh),
                UInt8(truncatingIfNeeded: random >> 24), UInt8(truncatingIfNeeded: random >> 16),
                UInt8(truncatingIfNeeded: random >> 8), UInt8(truncatingIfNeeded: random)
            ))
    }
}
