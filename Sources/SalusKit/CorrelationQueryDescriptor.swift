import SalusModel
import SalusProto
import SalusRPC

/// A correlation query, as HealthKit's `HKCorrelationQuery`: the correlations of one type that
/// match a predicate and, for each entry of `samplePredicates`, hold a member of that type
/// matching that predicate.
///
/// ```swift
/// // Meals of at least 800 kcal.
/// let hearty = CorrelationQueryDescriptor(
///     type: .food,
///     samplePredicates: [.quantity(.dietaryEnergyConsumed): .quantity(.greaterThanOrEqual, Quantity(value: 800, unit: .kilocalorie))]
/// )
/// for meal in try await hearty.result(for: store) {
///     print(meal.correlationValue?.objects ?? [])
/// }
/// ```
///
/// Each result is a sample whose value is a ``SalusModel/Correlation`` with its members. As in
/// HealthKit, a correlation shows only the members the app may read (each by its own type's
/// read permission), and one holding none of those is not returned; a sample predicate matches
/// only members the app may read.
public struct CorrelationQueryDescriptor: Hashable, Sendable {
    /// The correlation type.
    public var type: CorrelationTypeIdentifier
    /// Which correlations, by their own fields (dates, source, metadata, UUIDs); nil means all.
    public var predicate: SamplePredicate?
    /// Per member type, a predicate one member of that type must match.
    public var samplePredicates: [SampleType: SamplePredicate]
    /// At most this many correlations; nil means no limit.
    public var limit: Int?

    /// A query for correlations of `type` matching `predicate` and `samplePredicates`.
    public init(
        type: CorrelationTypeIdentifier,
        predicate: SamplePredicate? = nil,
        samplePredicates: [SampleType: SamplePredicate] = [:],
        limit: Int? = nil
    ) {
        self.type = type
        self.predicate = predicate
        self.samplePredicates = samplePredicates
        self.limit = limit
    }

    /// The request sent (`salus.v1.SampleQueryRequest` with `sample_predicates`, ordered by type
    /// identifier).
    package var request: Salus_V1_SampleQueryRequest {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type.rawValue
        if let predicate { request.predicate = predicate.wire }
        request.samplePredicates = samplePredicates
            .sorted { $0.key.identifier < $1.key.identifier }
            .map { SampleTypePredicate($0.key, predicate: $0.value).wire }
        request.limit = UInt64(max(0, limit ?? 0))
        return request
    }

    /// Runs the query and returns every matching correlation, in start-date order.
    public func result(for store: HealthStore) async throws(SalusError) -> [Sample] {
        try await samples(for: store).collect()
    }

    /// The matching correlations one by one, as the daemon streams them; the query runs when
    /// iteration starts, and stopping early cancels it. Errors are ``SalusError``s.
    public func samples(for store: HealthStore) -> SampleQuerySamples {
        SampleQuerySamples(store: store, request: request)
    }
}
