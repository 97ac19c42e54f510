import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// A statistics query, as HealthKit's `HKStatisticsQueryDescriptor`: sums, averages, minimums,
/// maximums, the most recent value or the duration of one quantity type's samples, merged across
/// sources by the owner's source priority.
///
/// ```swift
/// let steps = StatisticsQueryDescriptor(
///     predicate: .quantitySample(type: .stepCount),
///     options: .cumulativeSum,
///     window: DateInterval(start: midnight, end: now)
/// )
/// let total = try await steps.result(for: store).sumQuantity()?.value ?? 0
/// ```
///
/// With a window, samples that overlap it count, and sums count only the part of each sample
/// inside it (a sample spreads its value evenly over its duration). No matching sample is not an
/// error: the result has no values. The daemon refuses options that do not fit the type (see
/// ``StatisticsOptions``), a type that is not a quantity type (field `type`) and a unit of
/// another dimension (field `unit`) with ``SalusError/Code/invalidArgument``. The statistics use
/// only the samples this app may read.
public struct StatisticsQueryDescriptor: Hashable, Sendable {
    /// The quantity type and which of its samples count.
    public var predicate: SampleTypePredicate
    /// What to compute.
    public var options: StatisticsOptions
    /// The time to compute over; nil means every matching sample.
    public var window: DateInterval?
    /// The unit of the results; nil means the owner's preferred unit, else the type's canonical one.
    public var unit: SalusUnit?

    /// A query for `options` over the samples `predicate` selects, inside `window` (nil: all of
    /// them), in `unit` (nil: the owner's preferred unit).
    public init(predicate: SampleTypePredicate, options: StatisticsOptions, window: DateInterval? = nil, unit: SalusUnit? = nil) {
        self.predicate = predicate
        self.options = options
        self.window = window
        self.unit = unit
    }

    /// The request sent (`salus.v1.StatisticsRequest`).
    package var request: Salus_V1_StatisticsRequest {
        var request = Salus_V1_StatisticsRequest()
        request.type = predicate.type.identifier.rawValue
        if let predicate = predicate.predicate { request.predicate = predicate.wire }
        request.options = options.wire
        request.unit = unit?.description ?? ""
        if let window {
            request.windowStart = WireDate.microseconds(window.start)
            request.windowEnd = WireDate.microseconds(window.end)
        }
        return request
    }

    /// Runs the query.
    public func result(for store: HealthStore) async throws(SalusError) -> Statistics {
        let request = request
        let response: Salus_V1_StatisticsResponse = try await mappingErrors {
            try await store.client.unary(SalusMethods.Statistics.query, request: request)
        }
        return try Statistics(
            received: response.statistics, type: predicate.type, requestedUnit: unit, window: window, path: "statistics")
    }
}
