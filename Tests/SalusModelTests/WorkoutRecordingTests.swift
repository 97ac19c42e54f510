import Foundation
import Testing

@testable import SalusModel

/// A workout being recorded (`WorkoutRecording`) and the session's moves
/// (`WorkoutSessionState`): what the builder and the session services rely on.
@Suite("Workout recording and session states")
struct WorkoutRecordingTests {
    static let start = WorkoutRuleTests.start
    static func at(_ seconds: TimeInterval) -> Date { WorkoutRuleTests.at(seconds) }
    static let catalog = WorkoutRuleTests.catalog

    static func triathlon() -> WorkoutRecording {
        WorkoutRecording(activityType: WorkoutActivityType.swimBikeRun, startDate: start)
    }

    @Test("Beginning an activity ends the open one at its start; the end of collection ends the last")
    func activities() throws {
        var recording = try Self.triathlon()
            .beginningActivity(WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0)))
            .checked(with: Self.catalog)
        recording = try recording
            .beginningActivity(WorkoutActivity(activityType: WorkoutActivityType.transition, startDate: Self.at(900)))
            .checked(with: Self.catalog)
        #expect(recording.activities.map(\.endDate) == [Self.at(900), nil])
        #expect(recording.latestDate == Self.at(900))
        recording = try recording.endingCollection(at: Self.at(1000)).checked(with: Self.catalog)
        #expect(recording.phase == .ended)
        #expect(recording.activities.map(\.endDate) == [Self.at(900), Self.at(1000)])
        #expect(Self.catalog.validationErrors(of: recording.sample(source: SourceRevision(appID: "a", name: "a"), closingOpenActivity: true)).isEmpty)
    }

    @Test("A leg a swimBikeRun does not have is refused as the workout rules name it")
    func wrongLeg() throws {
        let recording = try Self.triathlon()
            .beginningActivity(WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0)))
        #expect {
            _ = try recording
                .beginningActivity(WorkoutActivity(activityType: WorkoutActivityType.wheelchairWalkPace, startDate: Self.at(60)))
                .checked(with: Self.catalog)
        } throws: { error in
            let error = error as? ValidationError
            return error?.field == "workout.activities[1].activityType" && error?.value == "70"
        }
    }

    @Test("Nothing is added after the end; finishing needs the end")
    func phases() throws {
        let collecting = Self.triathlon()
        #expect(throws: ValidationError.self) { try collecting.requireEnded() }
        let ended = try collecting.endingCollection(at: Self.at(60))
        #expect(throws: Never.self) { try ended.requireEnded() }
        #expect {
            _ = try ended.addingEvents([WorkoutEvent(.marker, startDate: Self.at(10))])
        } throws: { error in
            (error as? ValidationError)?.reason == .collectionEnded && (error as? ValidationError)?.field == "events"
        }
        #expect {
            _ = try collecting.endingCollection(at: Self.at(-1))
        } throws: { error in
            (error as? ValidationError)?.field == "endDate"
        }
    }

    @Test("Elapsed time leaves out pauses and stops at the end")
    func elapsed() throws {
        let recording = try WorkoutRecording(activityType: WorkoutActivityType.running, startDate: Self.start)
            .addingEvents([WorkoutEvent(.pause, startDate: Self.at(100)), WorkoutEvent(.resume, startDate: Self.at(160))])
        #expect(recording.elapsedTime(at: Self.at(-10)) == 0)
        #expect(recording.elapsedTime(at: Self.at(130)) == 100)
        #expect(recording.elapsedTime(at: Self.at(200)) == 140)
        #expect(try recording.endingCollection(at: Self.at(300)).elapsedTime(at: Self.at(900)) == 240)
    }

    @Test("The session's moves are HealthKit's, with its raw values")
    func sessionStates() {
        #expect(WorkoutSessionState.allCases.map(\.rawValue).sorted() == [1, 2, 3, 4, 5, 6])
        #expect(WorkoutSessionState.notStarted.rawValue == 1 && WorkoutSessionState.prepared.rawValue == 5)
        let legal = Set(WorkoutSessionState.allCases.flatMap { from in from.next.map { "\(from)→\($0)" } })
        #expect(legal == [
            "notStarted→prepared", "notStarted→running", "notStarted→ended", "prepared→running", "prepared→ended",
            "running→paused", "paused→running", "running→stopped", "paused→stopped", "stopped→ended",
        ])
        #expect(WorkoutSessionState.allCases.filter(\.isActive) == [.running, .paused, .stopped])
    }
}
