import Foundation
import SalusKit
import SalusModel
import SalusReport

/// A workout as `salusctl workouts show` shows it: the sample, its figures and its activities'
/// by `WorkoutFigureText.all`'s rule, and its routes with their locations and lengths.
package struct WorkoutDetail: Sendable {
    /// One activity of the workout (a leg of a triathlon) with its figures.
    package struct Activity: Sendable {
        package var activity: WorkoutActivity
        /// Its end: the activity's own, else the workout's.
        package var end: Date
        /// The time between its start and end, pauses excluded.
        package var activeDuration: TimeInterval
        package var figures: [WorkoutFigure]
    }

    /// One route of the workout.
    package struct Route: Sendable {
        package var sample: Sample
        package var locations: [RouteLocation]
        /// Its length along the locations, in metres.
        package var meters: Double
    }

    package var sample: Sample
    package var workout: Workout
    /// The duration its device recorded when it kept one (an import's), else the events'
    /// (pauses excluded).
    package var duration: TimeInterval
    package var figures: [WorkoutFigure]
    package var activities: [Activity]
    /// Oldest first.
    package var routes: [Route]
    /// The same workout from other sources, kept as its alternates, oldest first.
    package var alternates: [WorkoutAlternateDetail] = []
}

/// The same workout recorded by another source (its FIT file, Strava's GPX, Apple Health's
/// copy), which an import kept as an alternate of the stored one rather than as a second
/// workout (`org.salus.core.workoutAlternate`): its source, device, times and figures.
package struct WorkoutAlternateDetail: Sendable {
    /// The alternate's sample: its source revision and device are the other source's.
    package var sample: Sample
    package var workout: Workout
    /// The UUID of the workout it is an alternate of.
    package var alternateOf: UUID
    /// As ``WorkoutDetail/duration``.
    package var duration: TimeInterval
    /// Its own figures: computed from its source's samples, else the totals it was read with.
    package var figures: [WorkoutFigure]

    /// Why the kept workout is the workout and this one an alternate, in a sentence.
    package func choice(kept: Sample) -> String {
        "the workout from \(kept.sourceRevision.appID) was stored first and stays the workout; "
            + "this one from \(sample.sourceRevision.appID) has its activity type and shares at least 80% of the shorter one's time, "
            + "so an import kept it as an alternate, not a second workout"
    }
}

extension TypeListing {
    /// The identifiers of the cumulative types (`TypeAggregation.cumulative`): a workout's saved
    /// total of one is a sum, of any other type an average.
    package var cumulativeTypes: Set<TypeIdentifier> {
        Set(types.filter { $0.aggregation == .cumulative }.map { TypeIdentifier(rawValue: $0.identifier) })
    }
}

/// Every app's workouts, as `salusctl workouts` lists and shows them.
extension AdminClient {
    /// Every app's workouts, oldest first: those ending at or after `since`, and with
    /// `activityType` those of that activity type or with an activity of it (a triathlon is a
    /// running workout too).
    package func workouts(endingAtOrAfter since: Date? = nil, activityType: UInt? = nil) async throws -> [Sample] {
        var predicates: [SamplePredicate] = []
        if let since { predicates.append(.date(start: since, end: nil)) }
        // The workout's own type or one of its activities': a triathlon's own type (swimBikeRun)
        // is none of its legs'.
        if let activityType { predicates.append(.or([.workoutActivityType(activityType), .workoutActivity(activityType)])) }
        return try await samples(SampleQueryDescriptor(
            type: .workout, predicate: predicates.isEmpty ? nil : .and(predicates), sortDescriptors: [.startDate()]))
    }

    /// The workout `uuid` with its figures, activities and routes; nil when no workout has that
    /// UUID. `listing` is the daemon's type listing (``types()``), read when not given.
    package func workout(_ uuid: UUID, listing: TypeListing? = nil) async throws -> WorkoutDetail? {
        guard let sample = try await samples(SampleQueryDescriptor(type: .workout, predicate: .uuids([uuid]))).first,
            case .workout(let workout) = sample.value
        else { return nil }
        let listing = try await Self.listing(listing, from: self)
        let cumulative = listing.cumulativeTypes
        let activities = workout.activities.map { activity in
            let end = activity.endDate ?? sample.endDate
            return WorkoutDetail.Activity(
                activity: activity, end: end, activeDuration: workout.activeDuration(from: activity.startDate, to: end),
                figures: WorkoutFigureText.all(activity.allStatistics, saved: activity.statistics, cumulative: cumulative))
        }
        let routes = try await routes(of: uuid).map {
            WorkoutDetail.Route(sample: $0.route, locations: $0.locations, meters: WorkoutRoute(locations: $0.locations).length)
        }
        return WorkoutDetail(
            sample: sample, workout: workout, duration: workout.duration(from: sample.startDate, to: sample.endDate),
            figures: WorkoutFigureText.all(workout.allStatistics, saved: workout.statistics, cumulative: cumulative),
            activities: activities, routes: routes,
            alternates: try await workoutAlternates(
                .metadata(key: WorkoutAlternate.alternateOf, test: .allowedValues([.string(uuid.uuidString)])), listing: listing)[uuid] ?? [])
    }

    /// The workouts' alternates by the UUID of the workout each is an alternate of, oldest first:
    /// those ending at or after `since` (the same window as ``workouts(endingAtOrAfter:activityType:)``).
    /// `listing` as in ``workout(_:listing:)``.
    package func workoutAlternates(endingAtOrAfter since: Date? = nil, listing: TypeListing? = nil) async throws -> [UUID: [WorkoutAlternateDetail]] {
        try await workoutAlternates(since.map { .date(start: $0, end: nil) }, listing: Self.listing(listing, from: self))
    }

    /// `listing`, else the daemon's (``types()``).
    static func listing(_ listing: TypeListing?, from admin: AdminClient) async throws -> TypeListing {
        if let listing { return listing }
        return try await admin.types()
    }

    /// The alternates `predicate` selects, by the workout each is an alternate of; none when no
    /// plugin registers their type (a daemon without the Core plugin).
    func workoutAlternates(_ predicate: SamplePredicate?, listing: TypeListing) async throws -> [UUID: [WorkoutAlternateDetail]] {
        guard listing.types.contains(where: { $0.identifier == WorkoutAlternate.type.rawValue }) else { return [:] }
        let cumulative = listing.cumulativeTypes
        var found: [UUID: [WorkoutAlternateDetail]] = [:]
        let query = SampleQueryDescriptor(type: SampleType(WorkoutAlternate.type), predicate: predicate, sortDescriptors: [.startDate()])
        for sample in try await samples(query) {
            guard case .workout(let workout) = sample.value, case .string(let text) = sample.metadata[WorkoutAlternate.alternateOf],
                let kept = UUID(uuidString: text)
            else { continue }
            found[kept, default: []].append(WorkoutAlternateDetail(
                sample: sample, workout: workout, alternateOf: kept, duration: workout.duration(from: sample.startDate, to: sample.endDate),
                figures: WorkoutFigureText.all(workout.allStatistics, saved: workout.statistics, cumulative: cumulative)))
        }
        return found
    }
}
