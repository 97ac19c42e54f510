import Foundation
import SalusModel

/// A workout builder as the store keeps it: its owner, its state and the samples added to it, as
/// bytes the server encoded (the store does not read them).
package struct StoredWorkoutBuilder: Hashable, Sendable {
    /// The builder's id.
    package var id: UUID
    /// The app that began it.
    package var appID: String
    /// Its encoded state.
    package var state: [UInt8]
    /// The samples added, encoded, in the order added (empty when read without them).
    package var samples: [[UInt8]]
    /// How many samples were added.
    package var sampleCount: Int

    /// Creates a stored builder.
    package init(id: UUID, appID: String, state: [UInt8], samples: [[UInt8]] = [], sampleCount: Int = 0) {
        self.id = id
        self.appID = appID
        self.state = state
        self.samples = samples
        self.sampleCount = sampleCount
    }
}

/// A workout session as the store keeps it: its owner and its encoded state.
package struct StoredWorkoutSession: Hashable, Sendable {
    /// The session's id.
    package var id: UUID
    /// The app that created it.
    package var appID: String
    /// Its encoded state.
    package var state: [UInt8]

    /// Creates a stored session.
    package init(id: UUID, appID: String, state: [UInt8]) {
        self.id = id
        self.appID = appID
        self.state = state
    }
}

/// Workout builders and sessions (migrations 11 and 12): state kept in the database so that a
/// daemon restarted mid-workout loses nothing.
///
/// **Rules.**
/// 1. Every write runs on the writer's queue in one transaction: a builder's state and the
///    samples added with it change together or not at all. Why: a crash between the two would
///    leave a state counting samples that are not there.
/// 2. Builder writes take no change-sequence position and publish no commit event: nothing a
///    query can see changes until the builder is finished, and finishing is a sample save
///    (`SaveOptions.finishingWorkoutBuilder`) that deletes the builder in the same transaction —
///    so after a crash the workout and its samples are saved and the builder is gone, or nothing
///    is saved and the builder is still there.
extension SampleStore {
    /// Writes builder `id`'s state, creating the builder for `appID` when it is new, and appends
    /// `samples` after those already added, in one transaction.
    package func saveWorkoutBuilder(id: UUID, appID: String, state: [UInt8], appending samples: [[UInt8]] = []) async throws {
        try checkOpen()
        let now = StoredTime.microseconds(Date())
        _ = try await writer.connection.run { database in
            try database.transaction(immediate: true) {
                try database.run(
                    "INSERT INTO workout_builders (id, app_id, state, updated_us) VALUES (?, ?, ?, ?) "
                        + "ON CONFLICT(id) DO UPDATE SET state = excluded.state, updated_us = excluded.updated_us",
                    [.uuid(id), .text(appID), .blob(state), .integer(now)])
                guard !samples.isEmpty else { return }
                var position =
                    try database.scalarInt(
                        "SELECT coalesce(max(position), -1) FROM workout_builder_samples WHERE builder_id = ?", [.uuid(id)])
                    ?? -1
                let insert = try database.prepare(
                    "INSERT INTO workout_builder_samples (builder_id, position, sample) VALUES (?, ?, ?)")
                for sample in samples {
                    position += 1
                    try insert.bind([.uuid(id), .integer(position), .blob(sample)])
                    _ = try insert.step()
                    insert.reset()
                }
            }
        }
    }

    /// The builder with this id, with its samples when `includingSamples`; nil when there is
    /// none (never begun, finished or discarded).
    package func workoutBuilder(id: UUID, includingSamples: Bool) async throws -> StoredWorkoutBuilder? {
        try checkOpen()
        return try await readers.run { database in
            try database.transaction(immediate: false) { () throws -> StoredWorkoutBuilder? in
                let row = try database.prepare("SELECT app_id, state FROM workout_builders WHERE id = ?", cached: false)
                try row.bind([.uuid(id)])
                guard try row.step() else { return nil }
                var builder = StoredWorkoutBuilder(id: id, appID: row.text(0) ?? "", state: row.blob(1) ?? [])
                builder.sampleCount = Int(
                    try database.scalarInt("SELECT count(*) FROM workout_builder_samples WHERE builder_id = ?", [.uuid(id)]) ?? 0)
                if includingSamples {
                    let samples = try database.prepare(
                        "SELECT sample FROM workout_builder_samples WHERE builder_id = ? ORDER BY position", cached: false)
                    try samples.bind([.uuid(id)])
                    while try samples.step() { builder.samples.append(samples.blob(0) ?? []) }
                }
                return builder
            }
        }
    }

    /// The ids of `appID`'s builders, oldest first.
    package func workoutBuilderIDs(appID: String) async throws -> [UUID] {
        try checkOpen()
        return try await readers.run { database in
            let statement = try database.prepare(
                "SELECT id FROM workout_builders WHERE app_id = ? ORDER BY id", cached: false)
            try statement.bind([.text(appID)])
            var ids: [UUID] = []
            while try statement.step() { if let id = statement.uuid(0) { ids.append(id) } }
            return ids
        }
    }

    /// Deletes builder `id` and its samples; returns how many samples went with it, or nil when
    /// there was no such builder.
    package func discardWorkoutBuilder(id: UUID) async throws -> Int? {
        try checkOpen()
        return try await writer.connection.run { database in
            try database.transaction(immediate: true) { () throws -> Int? in
                let count = try database.scalarInt(
                    "SELECT count(*) FROM workout_builder_samples WHERE builder_id = ?", [.uuid(id)]) ?? 0
                try database.run("DELETE FROM workout_builder_samples WHERE builder_id = ?", [.uuid(id)])
                let deleted = try database.run("DELETE FROM workout_builders WHERE id = ?", [.uuid(id)])
                return deleted == 0 ? nil : Int(count)
            }
        }
    }

    /// Writes session `id`'s state, creating it for `appID` when new.
    package func saveWorkoutSession(_ session: StoredWorkoutSession) async throws {
        try checkOpen()
        let now = StoredTime.microseconds(Date())
        _ = try await writer.connection.run { database in
            try database.run(
                "INSERT INTO workout_sessions (id, app_id, state, updated_us) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(id) DO UPDATE SET state = excluded.state, updated_us = excluded.updated_us",
                [.uuid(session.id), .text(session.appID), .blob(session.state), .integer(now)])
        }
    }

    /// Every stored session, oldest first.
    package func workoutSessions() async throws -> [StoredWorkoutSession] {
        try checkOpen()
        return try await readers.run { database in
            let statement = try database.prepare("SELECT id, app_id, state FROM workout_sessions ORDER BY id", cached: false)
            var sessions: [StoredWorkoutSession] = []
            while try statement.step() {
                guard let id = statement.uuid(0) else { continue }
                sessions.append(StoredWorkoutSession(id: id, appID: statement.text(1) ?? "", state: statement.blob(2) ?? []))
            }
            return sessions
        }
    }
}
