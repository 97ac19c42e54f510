/// A position in the store's change sequence: every added sample and every deletion gets the
/// next position, so "all changes after anchor A" is exactly the rows whose position is above A.
///
/// An anchor returned by the store means "every change up to here has been delivered"; a client
/// persists it and passes it back to get only what came after. Anchors are plain numbers
/// (`rawValue`), so they travel in `salus.v1` messages as `uint64`.
package struct Anchor: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The position.
    package let rawValue: UInt64

    /// Wraps a position.
    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Wraps a position.
    package init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Before every change: the same as no anchor.
    package static let zero = Anchor(0)

    /// Orders anchors by position.
    package static func < (lhs: Anchor, rhs: Anchor) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The position as a decimal number.
    package var description: String { "\(rawValue)" }

    init(sequence value: Int64) {
        self.rawValue = UInt64(max(0, value))
    }

    var int64: Int64 { Int64(clamping: rawValue) }
}
