import Foundation

/// The values one statistics computation produced, each nil when not asked for or when no
/// sample counted.
public struct StatisticValues: Hashable, Sendable {
    /// The total (`cumulativeSum`).
    public var sum: Quantity?
    /// The average by the type's aggregation style (`discreteAverage`).
    public var average: Quantity?
    /// The smallest value (`discreteMin`).
    public var minimum: Quantity?
    /// The largest value (`discreteMax`).
    public var maximum: Quantity?
    /// The latest sample's value (`mostRecent`).
    public var mostRecent: Quantity?
    /// The latest sample's start and end (`mostRecent`).
    public var mostRecentInterval: DateInterval?
    /// The time covered by the counted samples, in seconds (`duration`).
    public var duration: Quantity?

    /// Creates values.
    public init(
        sum: Quantity? = nil, average: Quantity? = nil, minimum: Quantity? = nil, maximum: Quantity? = nil,
        mostRecent: Quantity? = nil, mostRecentInterval: DateInterval? = nil, duration: Quantity? = nil
    ) {
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentInterval = mostRecentInterval
        self.duration = duration
    }

    /// No value at all: what an interval without samples holds.
    public static let empty = StatisticValues()

    /// Whether every value is nil.
    public var isEmpty: Bool { self == .empty }
}
