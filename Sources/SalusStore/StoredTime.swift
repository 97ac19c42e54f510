import Foundation
import SalusModel

/// Dates as the store keeps them: integer microseconds since 1970-01-01 UTC.
enum StoredTime {
    /// `date` in microseconds since 1970, rounded to the nearest microsecond; a date past what
    /// int64 microseconds hold (about 292,000 years either way) is the nearest end, so that a
    /// window bound far in the future still means "after everything".
    static func microseconds(_ date: Date) -> Int64 {
        Int64(clampingRounded: date.timeIntervalSince1970 * 1_000_000)
    }

    /// The date `microseconds` after 1970.
    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}
