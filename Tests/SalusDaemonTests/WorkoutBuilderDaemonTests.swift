import Foundation
import SalusKit
import SalusModel
import SalusRPC
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The workout builder against a real daemon: a finish killed inside its transaction saves
/// nothing, and the builder is still there to finish after the restart.
@Suite("Workout builder against salusd")
struct WorkoutBuilderDaemonTests {
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static let perMinute = SalusUnit.count.divided(by: .minute)

    /// How many samples of `type` the owner sees.
    static func count(_ owner: HealthStore, _ type: SampleType) async throws -> Int {
        try await SampleQueryDescriptor(type: type).result(for: owner).count
    }

    @Test("kill -9 inside the finish transaction: nothing saved, the builder intact; finishing after the restart saves all")
    func killDuringFinish() async throws {
        let arguments = ["--dev", "--authorization", "open"]
        let daemon = try await DaemonHarness.start(
            arguments: arguments, environment: ["SALUSD_HOLD_WORKOUT_FINISH": "1"], bundledPlugins: true)
        let app = try await HealthStore.connect(socketPath: daemon.socketPath, appID: "org.example.tri")
        let builder = try await WorkoutBuilder.begin(
            healthStore: app, activityType: WorkoutActivityType.running, start: Self.start)
        let rates = (0..<300).map { index in
            Sample.quantity(
                .heartRate, Quantity(value: 120 + Double(index % 40), unit: Self.perMinute),
                start: Self.start.addingTimeInterval(Double(index) * 10))
        }
        try await builder.add(rates)
        try await builder.endCollection(at: Self.start.addingTimeInterval(3000))

        let finishing = Task { try? await builder.finishWorkout() }
        let deadline = ContinuousClock.now + .seconds(20)
        while !daemon.output.contains("holding a workout finish before its commit") {
            #expect(ContinuousClock.now < deadline, "the daemon never reached the finish transaction:\n\(daemon.output)")
            if ContinuousClock.now >= deadline { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        #expect(await finishing.value == nil, "the finish must not complete")
        await app.close()

        let restarted = try await DaemonHarness.start(
            arguments: arguments + ["--data-dir", daemon.dataDirectory.path], bundledPlugins: true)
        let owner = HealthStore(client: try await RPCClient.connect(unixSocketPath: restarted.adminSocketPath))
        #expect(try await Self.count(owner, .workout) == 0)
        #expect(try await Self.count(owner, .quantity(.heartRate)) == 0)

        let again = try await HealthStore.connect(socketPath: restarted.socketPath, appID: "org.example.tri")
        let recovered = try await WorkoutBuilder.inProgress(healthStore: again)
        #expect(recovered.map(\.id) == [builder.id])
        let snapshot = try await WorkoutBuilder(healthStore: again, id: builder.id).snapshot()
        #expect(snapshot.sampleCount == 300 && snapshot.recording.phase == .ended)
        let saved = try await WorkoutBuilder(healthStore: again, id: builder.id).finishWorkout()
        #expect(saved.endDate == Self.start.addingTimeInterval(3000))
        #expect(try await Self.count(owner, .workout) == 1)
        #expect(try await Self.count(owner, .quantity(.heartRate)) == 300)
        #expect(try await WorkoutBuilder.inProgress(healthStore: again).isEmpty)
        await again.close()
        await owner.close()
        #expect(try await restarted.stop() == 0)
    }
}
