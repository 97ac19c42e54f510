import Foundation

/// Dates on the wire are microseconds since the Unix epoch (UTC).
package enum WireDate {
    /// The date `microseconds` after the epoch.
    package static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// `date` in microseconds since the epoch, rounded to the nearest microsecond.
    package static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if value >= Double(Int64.max) { return Int64.max }
        if value <= Double(Int64.min) { return Int64.min }
        return Int64(value)
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
