import SalusProto

/// What a statistics query computes, as HealthKit's `HKStatisticsOptions`.
///
/// ```swift
/// let steps: StatisticsOptions = [.cumulativeSum, .separateBySource]
/// let heart: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]
/// ```
///
/// The daemon checks them against the type and refuses, with
/// ``SalusError/Code/invalidArgument`` naming `options`: no statistic at all (nothing, or
/// `separateBySource` alone); `cumulativeSum` with a discrete option; `cumulativeSum` on a
/// discrete type; a discrete option on a cumulative type.
public struct StatisticsOptions: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The raw bits.
    public let rawValue: UInt

    /// Options from raw bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Each source's own values as well as the merged ones (``Statistics/sumQuantity(for:)``).
    public static let separateBySource = StatisticsOptions(rawValue: 1 << 0)
    /// The average, by the type's aggregation style (discrete types).
    public static let discreteAverage = StatisticsOptions(rawValue: 1 << 1)
    /// The smallest value (discrete types).
    public static let discreteMin = StatisticsOptions(rawValue: 1 << 2)
    /// The largest value (discrete types).
    public static let discreteMax = StatisticsOptions(rawValue: 1 << 3)
    /// The total, merged across sources by the owner's source priority (cumulative types).
    public static let cumulativeSum = StatisticsOptions(rawValue: 1 << 4)
    /// The latest value and its sample's date interval (discrete types).
    public static let mostRecent = StatisticsOptions(rawValue: 1 << 5)
    /// The time covered by the counted samples (any type).
    public static let duration = StatisticsOptions(rawValue: 1 << 6)

    /// Every option with its name and wire value, in the wire's order.
    static let all: [(name: String, option: StatisticsOptions, wire: Salus_V1_StatisticsOption)] = [
        ("cumulativeSum", .cumulativeSum, .cumulativeSum),
        ("discreteAverage", .discreteAverage, .discreteAverage),
        ("discreteMin", .discreteMin, .discreteMin),
        ("discreteMax", .discreteMax, .discreteMax),
        ("mostRecent", .mostRecent, .mostRecent),
        ("duration", .duration, .duration),
        ("separateBySource", .separateBySource, .separateBySource),
    ]

    /// The wire form: one `salus.v1.StatisticsOption` per option set, in the wire's order.
    public var wire: [Salus_V1_StatisticsOption] {
        Self.all.filter { contains($0.option) }.map(\.wire)
    }

    /// The names of the options set, comma-separated ("cumulativeSum,separateBySource"), or
    /// "none".
    public var description: String {
        let names = Self.all.filter { contains($0.option) }.map(\.name)
        return names.isEmpty ? "none" : names.joined(separator: ",")
    }
}
