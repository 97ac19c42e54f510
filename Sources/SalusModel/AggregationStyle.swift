/// How quantity samples of one type combine in statistics; raw values are HealthKit's
/// `HKQuantityAggregationStyle`.
///
/// Cumulative types are summed; discrete types are averaged, with the style saying how.
package enum AggregationStyle: Int, CaseIterable, Hashable, Sendable, Codable {
    /// Values add up over time (steps, energy burned); statistics give sums.
    case cumulative = 0
    /// Each sample counts once in averages, minimums and maximums (body mass).
    case discreteArithmetic = 1
    /// Averages weight each value by the time until the next one (heart rate).
    case discreteTemporallyWeighted = 2
    /// Sound levels average as an equivalent continuous level (energy mean of decibels).
    case discreteEquivalentContinuousLevel = 3

    /// Whether statistics sum the values (only `.cumulative`).
    package var isCumulative: Bool { self == .cumulative }
}
