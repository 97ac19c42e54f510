import Foundation
import SalusModel
import SalusProto
import SalusStore
import SalusWire

/// The one rule by which an imported workout is the same workout as one the store holds from
/// another source, for every import (activity files and Apple Health exports alike), and what
/// is kept of it then (docs/import.md, "The same workout from several sources").
///
/// - **The same workout**: a stored workout of another source whose activity type is the
///   imported one's (or, for a multisport such as swimBikeRun, one of the other's legs) and
///   whose time overlaps it by at least `overlapShare` of the shorter of the two; of several,
///   the one sharing the most time.
/// - **The first stored stays the workout.** When the store holds the imported workout from its
///   own source (imported before, or kept with keep-duplicates), there is no duplicate: that one
///   is kept as it is.
/// - **The other is an alternate**: the same value under its own source and device, saved as a
///   `WorkoutAlternate.type` sample naming the kept workout, so no query of workouts returns the
///   run twice and its figures are kept. Its sync identifier is the imported workout's, so an
///   import made again adds nothing.
struct WorkoutDuplicates: Sendable {
    let store: SampleStore

    /// The least part of the shorter of two workouts they must share to be the same workout.
    static let overlapShare = 0.8

    /// The stored workout of another source that `workout` (read for `source`) records again, or
    /// nil.
    func stored(sameAs workout: Sample, source: SourceRevision) async throws -> Sample? {
        guard case .workout(let value) = workout.value else { return nil }
        let query = SampleQuery(
            type: WorkoutRecording.workoutType, predicate: .dateWindow(DateWindow(start: workout.startDate, end: workout.endDate)))
        var found: (sample: Sample, overlap: TimeInterval)?
        var pages = try store.samples(query).makeAsyncIterator()
        while let page = try await pages.next() {
            for stored in page {
                guard case .workout(let other) = stored.value,
                    Self.sameActivity(value, other),
                    let overlap = Self.overlap(workout, stored)
                else { continue }
                if stored.sourceRevision.appID == source.appID { return nil }
                if overlap > found?.overlap ?? -1 { found = (stored, overlap) }
            }
        }
        return found?.sample
    }

    /// The same activity type, or a multisport and one of its legs.
    static func sameActivity(_ a: Workout, _ b: Workout) -> Bool {
        if a.activityType == b.activityType { return true }
        return a.activities.contains { $0.activityType == b.activityType } || b.activities.contains { $0.activityType == a.activityType }
    }

    /// The seconds two samples share, when they are at least `overlapShare` of the shorter one's;
    /// nil when less, or when either lasts no time.
    static func overlap(_ a: Sample, _ b: Sample) -> TimeInterval? {
        let shorter = min(a.endDate.timeIntervalSince(a.startDate), b.endDate.timeIntervalSince(b.startDate))
        let shared = min(a.endDate, b.endDate).timeIntervalSince(max(a.startDate, b.startDate))
        guard shorter > 0, shared >= overlapShare * shorter else { return nil }
        return shared
    }

    /// `workout` as the alternate of `kept`: its type `WorkoutAlternate.type`, its metadata with
    /// `WorkoutAlternate.alternateOf` the kept workout's UUID; everything else (dates, value,
    /// device, sync identifier) as read.
    static func alternate(_ workout: Sample, of kept: Sample) -> Sample {
        var alternate = workout
        alternate.type = WorkoutAlternate.type
        alternate.metadata[WorkoutAlternate.alternateOf] = .string(kept.uuid.uuidString)
        return alternate
    }

    /// How a report lists an imported workout: its type, dates, legs, statistics and distance;
    /// `source` the app id it was read for.
    static func listed(_ workout: Sample, source: String) -> Salus_V1_ImportedWorkout {
        var listed = Salus_V1_ImportedWorkout()
        listed.startDate = WireDate.microseconds(workout.startDate)
        listed.endDate = WireDate.microseconds(workout.endDate)
        listed.source = source
        if case .workout(let value) = workout.value {
            listed.activityType = UInt32(value.activityType)
            listed.legs = value.activities.map { UInt32($0.activityType) }
            for (type, quantity) in value.statistics { listed.statistics[type.rawValue] = quantity.description }
            // The distance in metres, as a file's workout gives it: the sum of its distance
            // statistics (a multisport has one per sport's type). An export's workout has no
            // other (its alternate's line in the report showed none).
            listed.distance = value.statistics
                .filter { $0.key.rawValue.hasPrefix("HKQuantityTypeIdentifierDistance") }
                .compactMap { try? $0.value.converted(to: .meter).value }
                .reduce(0, +)
        }
        return listed
    }

    /// `listed` named an alternate of `kept`: its `uuid` and `alternate_of` the kept workout's.
    static func markAlternate(_ listed: inout Salus_V1_ImportedWorkout, of kept: Sample) {
        listed.uuid = kept.uuid.uuidString
        listed.alternateOf = "\(kept.sourceRevision.appID) \(kept.uuid.uuidString)"
    }
}
