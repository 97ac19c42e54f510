import Foundation
import SalusKit
import SalusModel
import SalusRPC
import SalusTestSupport
import Testing

/// The workout session through SalusKit, in process: its state machine, one active session
/// per person, and a mirror that sees every state in order with the builder's live statistics.
@Suite("The workout session")
struct WorkoutSessionTests {
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// The moves that bring a new session to `state`.
    static func path(to state: WorkoutSessionState) -> [WorkoutSessionState] {
        switch state {
        case .notStarted: []
        case .prepared: [.prepared]
        case .running: [.running]
        case .paused: [.running, .paused]
        case .stopped: [.running, .stopped]
        case .ended: [.ended]
        }
    }

    static func refusal(_ body: () async throws -> Void) async -> SalusError? {
        await WorkoutBuilderTests.refusal(body)
    }

    @Test("Every illegal transition is refused naming from and to, and changes nothing", arguments: WorkoutSessionState.allCases)
    func illegalTransitions(from state: WorkoutSessionState) async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let session = try await WorkoutSession.create(healthStore: store, activityType: WorkoutActivityType.running)
        for (index, move) in Self.path(to: state).enumerated() {
            try await session.move(to: move, at: Self.at(Double(index) * 60))
        }
        #expect(try await session.info().state == state)
        for target in WorkoutSessionState.allCases where !state.canMove(to: target) {
            let error = await Self.refusal { try await session.move(to: target, at: Self.at(600)) }
            #expect(error?.field == "to", "\(state) → \(target)")
            #expect(error?.value == "\(state.label) → \(target.label)")
            #expect(try await session.info().state == state)
        }
    }

    @Test("One active session at a time: a second start names the session that runs and its app")
    func oneAtATime() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let runner = try await server.healthStore("org.example.run", name: "Run")
        let swimmer = try await server.healthStore("org.example.swim", name: "Swim")
        let first = try await WorkoutSession.create(healthStore: runner, activityType: WorkoutActivityType.running)
        try await first.startActivity(at: Self.at(0))
        let second = try await WorkoutSession.create(healthStore: swimmer, activityType: WorkoutActivityType.swimming)
        let refused = await Self.refusal { try await second.startActivity(at: Self.at(60)) }
        #expect(refused?.code == .alreadyExists)
        #expect(refused?.field == "sessionID" && refused?.value == first.id.uuidString)
        #expect(refused?.expected?.contains("org.example.run") == true)
        #expect(try await second.info().state == .notStarted)
        // Paused and stopped sessions are still active.
        try await first.pause(at: Self.at(120))
        #expect(await Self.refusal { try await second.startActivity(at: Self.at(130)) }?.value == first.id.uuidString)
        try await first.stopActivity(at: Self.at(180))
        #expect(await Self.refusal { try await second.startActivity(at: Self.at(190)) }?.value == first.id.uuidString)
        try await first.end(at: Self.at(200))
        #expect(try await second.startActivity(at: Self.at(240)).state == .running)
        // Only the session's app moves it.
        let moved = await Self.refusal { try await WorkoutSession(healthStore: runner, id: second.id).pause(at: Self.at(300)) }
        #expect(moved?.code == .permissionDenied && moved?.field == "sessionID")
    }

    @Test("A mirror sees every state in order, pauses reach the builder, and live statistics follow")
    func mirror() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let watch = try await server.healthStore("org.example.run", name: "Run")
        let phone = try await server.healthStore("org.example.phone", name: "Phone")
        let session = try await WorkoutSession.create(healthStore: watch, activityType: WorkoutActivityType.running)
        var updates = WorkoutSession(healthStore: phone, id: session.id).stateChanges().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.info.state == .notStarted && first.from == nil)

        try await session.prepare(at: Self.at(0))
        try await session.startActivity(at: Self.at(10))
        #expect(try await WorkoutSession.active(healthStore: phone)?.id == session.id)
        let builder = try #require(try await session.builder())
        try await builder.add([
            .quantity(.heartRate, Quantity(value: 150, unit: SalusUnit.count.divided(by: .minute)), start: Self.at(30))
        ])
        try await session.pause(at: Self.at(60))
        try await session.resume(at: Self.at(120))
        try await session.stopActivity(at: Self.at(300))
        try await session.end(at: Self.at(310))

        var moves: [String] = []
        var sawStatistics = false
        while let update = try await updates.next() {
            if let from = update.from {
                moves.append("\(from)→\(update.info.state)")
            } else if let snapshot = update.builder, snapshot.sampleCount == 1 {
                sawStatistics = true
            }
        }
        #expect(moves == [
            "notStarted→prepared", "prepared→running", "running→paused", "paused→running", "running→stopped",
            "stopped→ended",
        ])
        #expect(sawStatistics)
        let snapshot = try await builder.snapshot()
        #expect(snapshot.recording.events.map(\.type) == [WorkoutEventType.pause.rawValue, WorkoutEventType.resume.rawValue])
        #expect(snapshot.recording.phase == .ended && snapshot.recording.endDate == Self.at(310))
        #expect(try await builder.elapsedTime(at: Self.at(400)) == 240)
    }

    @Test("An active session survives a restart of the daemon: a second start still names it")
    func restart() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let runner = try await server.healthStore("org.example.run", name: "Run")
        let first = try await WorkoutSession.create(healthStore: runner, activityType: WorkoutActivityType.running)
        try await first.startActivity(at: Self.at(0))
        try await first.pause(at: Self.at(60))
        await server.stop()

        let restarted = try await server.restart()
        let again = try await restarted.healthStore("org.example.run", name: "Run")
        let info = try await WorkoutSession(healthStore: again, id: first.id).info()
        #expect(info.state == .paused && info.startDate == Self.at(0))
        let second = try await WorkoutSession.create(healthStore: again, activityType: WorkoutActivityType.running)
        #expect(await Self.refusal { try await second.startActivity(at: Self.at(90)) }?.value == first.id.uuidString)
        try await WorkoutSession(healthStore: again, id: first.id).resume(at: Self.at(120))
        let builder = try #require(try await WorkoutSession(healthStore: again, id: first.id).builder())
        #expect(try await builder.snapshot().recording.events.map(\.type) == [1, 2])
    }
}
