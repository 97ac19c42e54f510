import SalusProto
import SalusRPC

/// An observer query, as HealthKit's `HKObserverQueryDescriptor`: a notification after every
/// commit that touches the watched types. It says which types changed, not what changed: run an
/// anchored query from your last anchor to learn that (also after a reconnect, to catch up).
///
/// ```swift
/// let observer = ObserverQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis))])
/// for try await update in observer.results(for: store) {
///     print("changed:", update.changedTypes)
/// }
/// ```
public struct ObserverQueryDescriptor: Hashable, Sendable {
    /// The types (each with an optional predicate) to watch.
    public var predicates: [SampleTypePredicate]

    /// Watches the samples `predicates` select.
    public init(predicates: [SampleTypePredicate]) {
        self.predicates = predicates
    }

    /// The request sent (`salus.v1.ObserverRequest`).
    package var request: Salus_V1_ObserverRequest {
        var request = Salus_V1_ObserverRequest()
        request.descriptors = predicates.map(\.wire)
        return request
    }

    /// A first element with no changed types and the current anchor (the moment observing
    /// began), then one element per commit that touches the watched types, until the iterating
    /// task is cancelled or the loop ends. Errors are ``SalusError``s.
    public func results(for store: HealthStore) -> ObserverQueryUpdates {
        ObserverQueryUpdates(store: store, request: request)
    }
}

/// One observer notification: which of the watched types a commit changed.
public struct ObserverUpdate: Hashable, Sendable {
    /// The types that changed; empty in the first notification, which only says that
    /// observing has begun.
    public var changedTypes: Set<SampleType>
    /// The change-sequence position of the commit (of the store, in the first notification).
    public var anchor: QueryAnchor

    /// Whether this is the first notification, sent when observing begins.
    public var isInitial: Bool { changedTypes.isEmpty }

    /// Creates a notification.
    public init(changedTypes: Set<SampleType>, anchor: QueryAnchor) {
        self.changedTypes = changedTypes
        self.anchor = anchor
    }
}

/// The notifications of an ``ObserverQueryDescriptor``.
public struct ObserverQueryUpdates: AsyncSequence, Sendable {
    /// One notification.
    public typealias Element = ObserverUpdate

    let store: HealthStore
    let request: Salus_V1_ObserverRequest

    /// Starts observing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(notifications: ResponseReader(store: store, method: SalusMethods.Store.observe, request: request))
    }

    /// Reads notifications from the daemon.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var notifications: ResponseReader<Salus_V1_ObserverNotification>

        /// The next notification, or nil when the stream has ended; throws ``SalusError``.
        public mutating func next() async throws -> ObserverUpdate? {
            guard let notification = try await notifications.next() else { return nil }
            return ObserverUpdate(
                changedTypes: Set(notification.changedTypes.map(SampleType.init(_:))),
                anchor: QueryAnchor(rawValue: notification.anchor)
            )
        }
    }
}
