/// A position in the store's change sequence, as HealthKit's `HKQueryAnchor`: an anchored query
/// from it returns only the changes after it.
///
/// Keep the ``rawValue`` (or encode the anchor) to resume after a restart. An anchor older than
/// the daemon's tombstone retention fails with ``SalusError/Code/anchorExpired``: start again
/// from nil and rebuild.
public struct QueryAnchor: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The change-sequence number.
    public var rawValue: UInt64

    /// The anchor at this change-sequence number.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders anchors by position.
    public static func < (lhs: QueryAnchor, rhs: QueryAnchor) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The number.
    public var description: String { "\(rawValue)" }
}
