import SalusProto

/// How a sample query orders its results, as HealthKit's sort descriptors on `startDate` and
/// `endDate`. Several descriptors sort by the first, then the next for ties.
public struct SampleSortDescriptor: Hashable, Sendable {
    /// The date to sort by.
    public enum Key: String, Hashable, Sendable {
        /// The sample's start date.
        case startDate
        /// The sample's end date.
        case endDate
    }

    /// The date to sort by.
    public var key: Key
    /// Oldest first when true, newest first when false.
    public var ascending: Bool

    /// Sorts by `key`, oldest first unless `ascending` is false.
    public init(_ key: Key, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Sorts by start date, oldest first unless `ascending` is false.
    public static func startDate(ascending: Bool = true) -> SampleSortDescriptor {
        SampleSortDescriptor(.startDate, ascending: ascending)
    }

    /// Sorts by end date, oldest first unless `ascending` is false.
    public static func endDate(ascending: Bool = true) -> SampleSortDescriptor {
        SampleSortDescriptor(.endDate, ascending: ascending)
    }

    /// The wire form.
    public var wire: Salus_V1_SortDescriptor {
        var wire = Salus_V1_SortDescriptor()
        wire.key = key == .startDate ? .startDate : .endDate
        wire.descending = !ascending
        return wire
    }
}
