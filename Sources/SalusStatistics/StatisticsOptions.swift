import SalusModel
import SalusStore

/// What a statistics query computes, as HealthKit's `HKStatisticsOptions`.
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

    /// Checks the options against a type's aggregation style; throws `invalidArgument` naming
    /// `field` ("options"), the offending option and what was expected.
    public func validate(for type: TypeIdentifier, style: AggregationStyle, field: String = "options") throws(StoreError) {
        let statistics = subtracting(.separateBySource)
        guard !statistics.isEmpty else {
            throw StoreError(
                code: .invalidArgument, field: field, value: description,
                expected: "at least one of cumulativeSum, discreteAverage, discreteMin, discreteMax, mostRecent, duration")
        }
        if contains(.cumulativeSum), !intersection(Self.discreteOptions).isEmpty {
            throw StoreError(
                code: .invalidArgument, field: field, value: description,
                expected: "cumulativeSum alone, or discrete options alone: cumulativeSum cannot be combined with "
                    + intersection(Self.discreteOptions).description)
        }
        if contains(.cumulativeSum), !style.isCumulative {
            throw StoreError(
                code: .invalidArgument, field: field, value: "cumulativeSum",
                expected: "discrete options for \(type), whose aggregation style is \(style.name)")
        }
        if style.isCumulative {
            let refused = intersection(Self.discreteOptions)
            if !refused.isEmpty {
                throw StoreError(
                    code: .invalidArgument, field: field, value: refused.description,
                    expected: "cumulativeSum or duration for \(type), whose aggregation style is cumulative")
            }
        }
    }
}

extension AggregationStyle {
    /// The style's name as HealthKit spells it (`"discreteTemporallyWeighted"`).
    public var name: String {
        switch self {
        case .cumulative: "cumulative"
        case .discreteArithmetic: "discreteArithmetic"
        case .discreteTemporallyWeighted: "discreteTemporallyWeighted"
        case .discreteEquivalentContinuousLevel: "discreteEquivalentContinuousLevel"
        }
    }
}
