import Foundation
import SalusModel

/// Dates as the store keeps them: integer microseconds since 1970-01-01 UTC.
enum StoredTime {
    /// `date` in microseconds since 1970, rounded to the nearest microsecond; a date past what
    /// int64 microseconds hold (about 292,000 years either way) is the nearest end, so that a
    /// window bound far in the future still means "after everything".
    ///
    /// `Int64(clampingRounded:)` gives the same, generically: it converted through the standard
    /// library's generic `_convert(from:)`, not inlined, about 4% of the writer's time in a batch
    /// save (two dates a sample). Here with Double and Int64 concrete.
    @inline(__always)
    static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded(.toNearestOrAwayFromZero)
        // -2^63 and 2^63 are exact as doubles: every rounded value in between converts.
        if value >= -0x1p63 && value < 0x1p63 { return Int64(value) }
        return value.isNaN ? 0 : value < 0 ? .min : .max
    }

    /// The date `microseconds` after 1970.
    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}
