import Foundation
import Testing

@testable import SalusModel

/// The 16 bytes of a UUID in order.
func bytes(of uuid: UUID) -> [UInt8] {
    withUnsafeBytes(of: uuid.uuid) { Array($0) }
}

@Suite("UUIDv7")
struct UUIDv7Tests {
    @Test("Version nibble is 7 and variant bits are 10")
    func layout() {
        for _ in 0..<100 {
            let id = bytes(of: UUIDv7.make())
            #expect(id[6] >> 4 == 7)
            #expect(id[8] >> 6 == 0b10)
        }
    }

    @Test("The first 48 bits are the Unix time in milliseconds")
    func timestamp() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let id = UUIDv7.make(at: date)
        let milliseconds = bytes(of: id)[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_700_000_000_123)
        let decoded = try #require(UUIDv7.date(of: id))
        #expect(abs(decoded.timeIntervalSince1970 - 1_700_000_000.123) < 0.0005)
        #expect(UUIDv7.date(of: UUID(uuidString: "f81d4fae-7dec-41d0-a765-00a0c91e6bf6")!) == nil)
    }

    @Test("10,000 consecutive ids strictly increase and are unique")
    func ordering() {
        let ids = (0..<10_000).map { _ in UUIDv7.make() }
        for (previous, next) in zip(ids, ids.dropFirst()) {
            #expect(bytes(of: previous).lexicographicallyPrecedes(bytes(of: next)))
        }
        #expect(Set(ids).count == ids.count)
    }

    @Test("Ids made for one millisecond, or a moment earlier, still increase")
    func sameMillisecond() {
        let date = Date()
        var ids = (0..<1000).map { _ in UUIDv7.make(at: date) }
        ids.append(UUIDv7.make(at: date.addingTimeInterval(-0.5)))
        for (previous, next) in zip(ids, ids.dropFirst()) {
            #expect(bytes(of: previous).lexicographicallyPrecedes(bytes(of: next)))
        }
    }

    @Test("An id for a much earlier time carries that time")
    func earlierTime() throws {
        _ = UUIDv7.make()
        let past = Date(timeIntervalSince1970: 1_600_000_000)
        let decoded = try #require(UUIDv7.date(of: UUIDv7.make(at: past)))
        #expect(decoded == past)
    }

    @Test("Ids from many tasks are unique")
    func concurrent() async {
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<1000).map { _ in UUIDv7.make() } }
            }
            var all: [UUID] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(Set(ids).count == 8000)
    }
}
