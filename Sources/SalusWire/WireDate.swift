import Foundation
import SalusModel

/// Dates on the wire are microseconds since the Unix epoch (UTC).
package enum WireDate {
    /// The date `microseconds` after the epoch.
    package static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// `date` in microseconds since the epoch, rounded to the nearest microsecond; a date past
    /// what int64 microseconds hold is the nearest end, and a NaN date (which only a client's
    /// own arithmetic makes) the epoch.
    package static func microseconds(_ date: Date) -> Int64 {
        Int64(clampingRounded: date.timeIntervalSince1970 * 1_000_000)
    }
}

/// UUIDs on the wire are their 16 bytes.
package enum WireUUID {
    package static func bytes(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    /// The UUID in `data`, or nil when it is not 16 bytes.
    package static func uuid(_ data: Data) -> UUID? {
        guard data.count == 16 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: data) }
        return UUID(uuid: raw)
    }
}
