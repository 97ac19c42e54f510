import Foundation

/// Dates as the store keeps them: integer microseconds since 1970-01-01 UTC.
enum StoredTime {
    /// `date` in microseconds since 1970, rounded to the nearest microsecond.
    static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if value >= Double(Int64.max) { return Int64.max }
        if value <= Double(Int64.min) { return Int64.min }
        return Int64(value)
    }

    /// The date `microseconds` after 1970.
    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// `seconds` as microseconds, rounded.
    static func microseconds(seconds: Double) -> Int64 {
        Int64((seconds * 1_000_000).rounded())
    }
}
