/// Doubles made whole numbers without a trap.
///
/// `Int64(x)` on a `Double` stops the process when `x` is NaN, infinite or outside the integer's
/// range (`Int64(1e300)`: "Double value cannot be converted to Int64"). Every number that comes
/// from outside the process — a request, a plugin, an imported file, a value already stored —
/// becomes an integer through one of these two, never through `Int64(_:)` directly:
/// - ``FixedWidthInteger/init(rounding:_:)`` where an out-of-range value is refused (the
///   caller names the field: a predicate's duration, a command-line figure);
/// - ``FixedWidthInteger/init(clampingRounded:_:)`` where a value must be shown or kept
///   whatever it is (a stored figure in a report, a date at the end of the store's range).
extension FixedWidthInteger {
    /// `value` rounded by `rule`, or nil when it is NaN, infinite or outside this type's range.
    /// Inlinable, as is the next: the store converts every sample's dates this way, and called
    /// across modules unspecialized (generic over both types) each took a tenth of a FIT
    /// import's time.
    @inlinable
    package init?<Source: BinaryFloatingPoint>(
        rounding value: Source, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) {
        self.init(exactly: value.rounded(rule))
    }

    /// `value` rounded by `rule`, clamped to this type's range; NaN is zero.
    @inlinable
    package init<Source: BinaryFloatingPoint>(
        clampingRounded value: Source, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero
    ) {
        if let exact = Self(rounding: value, rule) {
            self = exact
        } else if value.isNaN {
            self = 0
        } else {
            self = value < 0 ? .min : .max
        }
    }
}
