/// The owner's ranking of sources for one type, highest first, as Health's "Data Sources &
/// Access" list: the first app id wins an overlap.
///
/// Sources not in the list rank below every listed one, and among themselves by the
/// tie-breakers of the merge (most recently saved first, then start, end and value).
package struct SourcePriority: Hashable, Sendable {
    /// App ids, highest priority first, without repeats.
    package var appIDs: [String]

    /// Creates a ranking; repeated app ids keep their first position.
    package init(_ appIDs: [String] = []) {
        var seen = Set<String>()
        self.appIDs = appIDs.filter { seen.insert($0).inserted }
    }

    /// No ranking: every source is unlisted.
    package static let none = SourcePriority()

    /// The rank of `appID`: its position in the list, or `Int.max` when unlisted (lower wins).
    package func rank(of appID: String) -> Int {
        appIDs.firstIndex(of: appID) ?? Int.max
    }
}
