import Foundation
import SalusModel


/// A sample query: one type, an optional predicate, a sort order and an optional limit.
package struct SampleQuery: Hashable, Sendable {
    /// The type.
    package var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    package var predicate: SamplePredicate?
    /// The order; empty means by start date, ascending. Samples that tie on every key come in
    /// the order they were saved.
    package var sort: [SampleSortDescriptor]
    /// The most samples to return; nil for no limit.
    package var limit: Int?
    /// Correlation types only, as HealthKit's `HKCorrelationQuery.samplePredicates`: a
    /// correlation matches when, for every descriptor, it holds a member of that type matching
    /// that predicate. Empty: no condition on the members.
    package var memberPredicates: [QueryDescriptor]

    /// Creates a query.
    package init(
        type: TypeIdentifier, predicate: SamplePredicate? = nil, sort: [SampleSortDescriptor] = [], limit: Int? = nil,
        memberPredicates: [QueryDescriptor] = []
    ) {
        self.type = type
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.memberPredicates = memberPredicates
    }
}

/// One (type, predicate) pair of an anchored query or an observer, as HealthKit's
/// `HKQueryDescriptor`.
package struct QueryDescriptor: Hashable, Sendable {
    /// The type.
    package var type: TypeIdentifier
    /// The filter; nil means every sample of the type. It filters deleted objects too.
    package var predicate: SamplePredicate?
    /// Leave out changes that arrived from the person's other stores (replicas): what a sync
    /// agent reads to send, so that it never sends back what it brought.
    package var localChangesOnly: Bool

    /// Creates a descriptor.
    package init(type: TypeIdentifier, predicate: SamplePredicate? = nil, localChangesOnly: Bool = false) {
        self.type = type
        self.predicate = predicate
        self.localChangesOnly = localChangesOnly
    }
}


/// What an anchored query returns: the changes after the anchor, in change order.
package struct AnchoredQueryResult: Hashable, Sendable {
    /// Samples added after the anchor that still exist and match, in change order.
    package var added: [Sample]
    /// Samples deleted after the anchor that match (as far as a tombstone can tell), in change
    /// order; a deleted object may be for a sample added after the anchor too.
    package var deleted: [DeletedObject]
    /// Where to resume: the position of the last change returned when `hasMore`, otherwise the
    /// latest position of the snapshot read.
    package var anchor: Anchor
    /// Whether the limit cut the changes short: call again from `anchor` for the rest.
    package var hasMore: Bool
    /// The added samples' stored bytes (`StoreReads.storedBytes`, members included), when the
    /// read had a byte budget; 0 otherwise.
    package var storedBytes = 0

    /// Creates a result.
    package init(added: [Sample], deleted: [DeletedObject], anchor: Anchor, hasMore: Bool) {
        self.added = added
        self.deleted = deleted
        self.anchor = anchor
        self.hasMore = hasMore
    }
}

/// One app that wrote samples matching a source query, and the devices it recorded them with.
package struct SourceInfo: Hashable, Sendable {
    /// The app id.
    package var appID: String
    /// The app's name, from its latest source revision.
    package var name: String
    /// The distinct devices of its matching samples, without the nil device; in first-seen
    /// order.
    package var devices: [Device]

    /// Creates a source description.
    package init(appID: String, name: String, devices: [Device]) {
        self.appID = appID
        self.name = name
        self.devices = devices
    }
}
