/// The order of a sample query's results, as HealthKit's `SortDescriptor` over
/// `HKSample.startDate` / `endDate`; ties are broken by save order.
public struct SampleSortDescriptor: Hashable, Sendable {
    /// A sortable sample property.
    public enum Key: String, Hashable, Sendable {
        /// `startDate`.
        case startDate
        /// `endDate`.
        case endDate
    }

    /// The property.
    public var key: Key
    /// Earliest first when true.
    public var ascending: Bool

    /// A sort descriptor; ascending by default.
    public init(_ key: Key, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// By start date.
    public static func startDate(ascending: Bool = true) -> SampleSortDescriptor {
        SampleSortDescriptor(.startDate, ascending: ascending)
    }

    /// By end date.
    public static func endDate(ascending: Bool = true) -> SampleSortDescriptor {
        SampleSortDescriptor(.endDate, ascending: ascending)
    }
}
