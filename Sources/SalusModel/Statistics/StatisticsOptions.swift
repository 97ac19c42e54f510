import Foundation

/// What a statistics query computes, as HealthKit's `HKStatisticsOptions`: shared by the
/// engine, the daemon and SalusKit.
///
/// ```swift
/// let steps: StatisticsOptions = [.cumulativeSum, .separateBySource]
/// let heart: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]
/// ```
///
/// A cumulative option (`cumulativeSum`) cannot be combined with a discrete one
/// (`discreteAverage`, `discreteMin`, `discreteMax`, `mostRecent`); `duration` and
/// `separateBySource` combine with either. Each option must fit the type's aggregation style:
/// `cumulativeSum` only cumulative types, the discrete options only discrete types.
public struct StatisticsOptions: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The raw bits.
    public let rawValue: UInt

    /// Creates options from raw bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Results per source as well as merged (`Statistics.bySource`).
    public static let separateBySource = StatisticsOptions(rawValue: 1 << 0)
    /// The average, by the type's aggregation style (discrete types).
    public static let discreteAverage = StatisticsOptions(rawValue: 1 << 1)
    /// The smallest value (discrete types).
    public static let discreteMin = StatisticsOptions(rawValue: 1 << 2)
    /// The largest value (discrete types).
    public static let discreteMax = StatisticsOptions(rawValue: 1 << 3)
    /// The total, merged across sources by priority (cumulative types).
    public static let cumulativeSum = StatisticsOptions(rawValue: 1 << 4)
    /// The latest value and its sample's date interval (discrete types).
    public static let mostRecent = StatisticsOptions(rawValue: 1 << 5)
    /// The time covered by the counted samples (any type).
    public static let duration = StatisticsOptions(rawValue: 1 << 6)

    /// Every option with its name, in a fixed order.
    public static let named: [(name: String, option: StatisticsOptions)] = [
        ("cumulativeSum", .cumulativeSum), ("discreteAverage", .discreteAverage), ("discreteMin", .discreteMin),
        ("discreteMax", .discreteMax), ("mostRecent", .mostRecent), ("duration", .duration),
        ("separateBySource", .separateBySource),
    ]

    /// The options that only discrete types accept.
    public static let discreteOptions: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]

    /// The option for a name from `named` (`"cumulativeSum"`), or nil.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.option
    }

    /// The names of the options set, comma-separated (`"discreteAverage,discreteMax"`).
    public var description: String {
        let names = Self.named.filter { contains($0.option) }.map(\.name)
        return names.isEmpty ? "none" : names.joined(separator: ",")
    }
}

extension AggregationStyle {
    /// The style's name as HealthKit spells it (`"discreteTemporallyWeighted"`).
    package var name: String {
        switch self {
        case .cumulative: "cumulative"
        case .discreteArithmetic: "discreteArithmetic"
        case .discreteTemporallyWeighted: "discreteTemporallyWeighted"
        case .discreteEquivalentContinuousLevel: "discreteEquivalentContinuousLevel"
        }
    }
}
