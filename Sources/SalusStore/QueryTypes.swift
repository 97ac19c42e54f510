import Foundation
import SalusModel


/// A sample query: one type, an optional predicate, a sort order and an optional limit.
public struct SampleQuery: Hashable, Sendable {
    /// The type.
    public var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    public var predicate: SamplePredicate?
    /// The order; empty means by start date, ascending. Samples that tie on every key come in
    /// the order they were saved.
    public var sort: [SampleSortDescriptor]
    /// The most samples to return; nil for no limit.
    public var limit: Int?

    /// Creates a query.
    public init(type: TypeIdentifier, predicate: SamplePredicate? = nil, sort: [SampleSortDescriptor] = [], limit: Int? = nil) {
        self.type = type
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }
}

/// One (type, predicate) pair of an anchored query or an observer, as HealthKit's
/// `HKQueryDescriptor`.
public struct QueryDescriptor: Hashable, Sendable {
    /// The type.
    public var type: TypeIdentifier
    /// The filter; nil means every sample of the type. It filters deleted objects too.
    public var predicate: SamplePredicate?

    /// Creates a descriptor.
    public init(type: TypeIdentifier, predicate: SamplePredicate? = nil) {
        self.type = type
        self.predicate = predicate
    }
}

/// What an anchored query returns: the changes after the anchor, in change order.
public struct AnchoredQueryResult: Hashable, Sendable {
    /// Samples added after the anchor that still exist and match, in change order.
    public var added: [Sample]
    /// Samples deleted after the anchor that match (as far as a tombstone can tell), in change
    /// order; a deleted object may be for a sample added after the anchor too.
    public var deleted: [DeletedObject]
    /// Where to resume: the position of the last change returned when `hasMore`, otherwise the
    /// latest position of the snapshot read.
    public var anchor: Anchor
    /// Whether the limit cut the changes short: call again from `anchor` for the rest.
    public var hasMore: Bool

    /// Creates a result.
    public init(added: [Sample], deleted: [DeletedObject], anchor: Anchor, hasMore: Bool) {
        self.added = added
        self.deleted = deleted
        self.anchor = anchor
        self.hasMore = hasMore
    }
}

/// One app that wrote samples matching a source query, and the devices it recorded them with.
public struct SourceInfo: Hashable, Sendable {
    /// The app id.
    public var appID: String
    /// The app's name, from its latest source revision.
    public var name: String
    /// The distinct devices of its matching samples, without the nil device; in first-seen
    /// order.
    public var devices: [Device]

    /// Creates a source description.
    public init(appID: String, name: String, devices: [Device]) {
        self.appID = appID
        self.name = name
        self.devices = devices
    }
}
