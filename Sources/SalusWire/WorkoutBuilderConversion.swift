import Foundation
import SalusModel
import SalusProto

/// Workout recordings between the wire (`salus.v1.WorkoutBuilderState`) and the model: what a
/// builder call returns and what the daemon keeps in its database.
extension WorkoutRecording {
    /// The recording `wire` holds; fields that do not convert are named under `path`.
    package init(wire: Salus_V1_WorkoutBuilderState, path: String = "builder") throws(ValidationError) {
        guard let id = WireUUID.uuid(wire.builderID) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).builderID", value: "\(wire.builderID.count) bytes", expected: "16 bytes")
        }
        let sample = try Sample(
            wire: wire.workout, path: "\(path).workout", source: SourceRevision(appID: "", name: ""))
        guard case .workout(let workout) = sample.value else {
            throw ValidationError(
                reason: .wrongKind, field: "\(path).workout.value", value: "\(sample.kind)", expected: "a workout")
        }
        self.init(
            id: id, activityType: workout.activityType, configuration: workout.configuration, startDate: sample.startDate,
            device: sample.device)
        phase = wire.phase == .ended ? .ended : .collecting
        endDate = phase == .ended ? sample.endDate : nil
        metadata = sample.metadata
        events = workout.events
        activities = workout.activities
    }

    /// The wire form: the workout as a sample up to `latestDate`, its open activity without an
    /// end date; `statistics`, when given, are set on the workout and its activities.
    package func wire(source: SourceRevision, statistics: Workout? = nil, sampleCount: Int = 0) -> Salus_V1_WorkoutBuilderState {
        var state = Salus_V1_WorkoutBuilderState()
        state.builderID = WireUUID.bytes(id)
        state.phase = phase == .ended ? .ended : .collecting
        var sample = self.sample(source: source, closingOpenActivity: false)
        if let statistics { sample.value = .workout(statistics) }
        state.workout = sample.wire
        state.sampleCount = UInt64(sampleCount)
        return state
    }
}
