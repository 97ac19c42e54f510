import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

extension HealthStore {
    /// The value of a characteristic, as HealthKit's `dateOfBirthComponents()`,
    /// `biologicalSex()`, `bloodType()`...: nil when the person has not set it **or** the app may
    /// not read it (the two look the same, as in HealthKit). Apps can never write one.
    public func characteristic(_ type: TypeIdentifier) async throws(SalusError) -> Characteristic.Value? {
        let response: Salus_V1_CharacteristicsResponse = try await mappingErrors {
            try await client.unary(
                SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest.with { $0.types = [type.rawValue] })
        }
        guard let first = response.characteristics.first(where: { $0.type == type.rawValue }) else { return nil }
        do {
            return try Characteristic(wire: first, path: "characteristics[0]").value
        } catch {
            throw SalusError.malformed(field: error.field, value: error.value, expected: error.expected)
        }
    }

    /// HealthKit's `dateOfBirthComponents()`: the day, or nil.
    public func dateOfBirth() async throws(SalusError) -> CalendarDate? {
        if case .date(let day)? = try await characteristic(.dateOfBirth) { return day }
        return nil
    }

    /// The raw value of an enumerated characteristic (HKBloodType, HKWheelchairUse, ...), or nil.
    public func characteristicRawValue(_ type: TypeIdentifier) async throws(SalusError) -> Int64? {
        if case .enumeration(let raw)? = try await characteristic(type) { return raw }
        return nil
    }
}

/// An activity summary query, as HealthKit's `HKActivitySummaryQueryDescriptor`: the summary of
/// each day in a range, once or live.
///
/// ```swift
/// let week = ActivitySummaryQueryDescriptor(
///     first: CalendarDate(year: 2026, month: 3, day: 23)!, last: CalendarDate(year: 2026, month: 3, day: 29)!)
/// for day in try await week.result(for: store) { print(day.date, day.appleExerciseTime) }
/// for try await changed in week.results(for: store) { redraw(changed) }   // every day, then changed days
/// ```
///
/// The app needs read access to `HKActivitySummaryTypeIdentifier`; without it the result is
/// empty, as in HealthKit.
public struct ActivitySummaryQueryDescriptor: Hashable, Sendable {
    /// The first day.
    public var first: CalendarDate
    /// The last day (inclusive).
    public var last: CalendarDate
    /// The time zone days are counted in; nil means the person's.
    public var timeZone: TimeZone?

    /// A query of the days `first` through `last`.
    public init(first: CalendarDate, last: CalendarDate, timeZone: TimeZone? = nil) {
        self.first = first
        self.last = last
        self.timeZone = timeZone
    }

    func request(live: Bool) -> Salus_V1_ActivitySummaryRequest {
        Salus_V1_ActivitySummaryRequest.with {
            $0.firstDay = first.wire
            $0.lastDay = last.wire
            $0.timeZone = timeZone?.identifier ?? ""
            $0.live = live
        }
    }

    /// The summaries of every day in the range, in order.
    public func result(for store: HealthStore) async throws(SalusError) -> [ActivitySummary] {
        var reader = ResponseReader<Salus_V1_ActivitySummaryBatch>(
            store: store, method: SalusMethods.Person.queryActivitySummaries, request: request(live: false))
        var summaries: [ActivitySummary] = []
        while let batch = try await reader.next() {
            summaries += batch.summaries.map(ActivitySummary.init(wire:))
        }
        return summaries
    }

    /// Every day as a first element, then the days whose summary changed, after each change of
    /// samples, goals or characteristics, until the iterating task is cancelled or the loop
    /// ends. Errors are ``SalusError``s.
    public func results(for store: HealthStore) -> ActivitySummaryUpdates {
        ActivitySummaryUpdates(reader: ResponseReader(
            store: store, method: SalusMethods.Person.queryActivitySummaries, request: request(live: true)))
    }
}

/// The updates of a live activity summary query: every day first, then the changed days.
public struct ActivitySummaryUpdates: AsyncSequence, Sendable {
    /// The summaries of one update.
    public typealias Element = [ActivitySummary]

    let reader: ResponseReader<Salus_V1_ActivitySummaryBatch>

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: reader)
    }

    /// Reads batches as updates are consumed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var reader: ResponseReader<Salus_V1_ActivitySummaryBatch>
        var initialDone = false

        /// The next update, or nil when the query ended; throws ``SalusError``.
        public mutating func next() async throws -> [ActivitySummary]? {
            var initial: [ActivitySummary] = []
            while let batch = try await reader.next() {
                let summaries = batch.summaries.map(ActivitySummary.init(wire:))
                if initialDone { return summaries }
                initial += summaries
                if batch.initialResultsComplete {
                    initialDone = true
                    return initial
                }
            }
            return initialDone || initial.isEmpty ? nil : initial
        }
    }
}
