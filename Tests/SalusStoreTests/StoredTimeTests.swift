import Foundation
import SalusModel
@testable import SalusStore
import Testing

/// Dates in the store's microseconds: the concrete conversion gives what the generic
/// `Int64(clampingRounded:)` gives, for every date, ordinary or extreme.
@Suite("Stored microseconds")
struct StoredTimeTests {
    @Test("ordinary dates, halves of a microsecond either way, dates at and past int64's ends, infinities and NaN convert as Int64(clampingRounded:) does")
    func sameAsGeneric() {
        var seconds: [Double] = [
            0, -0.0, 1e-7, 5e-7, -5e-7, 1.5e-6, -1.5e-6, 1_700_000_000.123_456_5, -1_700_000_000.000_000_5,
            9_223_372_036_854.775_807, 9_223_372_036_854.775_808, -9_223_372_036_854.775_808, -9_223_372_036_855,
            9.3e12, -9.3e12, 1e300, -1e300, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude,
        ]
        // Around the edges: the doubles next to ±2^63 microseconds, as seconds.
        for edge in [0x1p63, -0x1p63] {
            var value = edge
            for _ in 0..<4 { value = value.nextDown }
            for _ in 0..<8 {
                seconds.append(value / 1_000_000)
                value = value.nextUp
            }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { seconds.append(Double.random(in: -4e9...4e9, using: &random)) }
        for _ in 0..<1_000 { seconds.append(Double(bitPattern: random.next())) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(
                StoredTime.microseconds(date) == Int64(clampingRounded: date.timeIntervalSince1970 * 1_000_000),
                "\(value) s")
        }
    }
}
