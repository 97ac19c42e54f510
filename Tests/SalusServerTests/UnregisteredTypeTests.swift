import Foundation
import SalusKit
import SalusModel
import SalusStore
import SalusTestSupport
import Testing

/// A store written with a plugin that is no longer loaded: rows of a type no plugin declares.
/// Reading or deleting one by its UUID tells an app no more than a UUID that does not exist, and
/// traps nothing.
@Suite("Samples of a type no loaded plugin declares")
struct UnregisteredTypeTests {
    static let gone = "org.example.gone.Steps"

    /// What a call answered, with the UUID it named written as "UUID".
    static func outcome(_ uuid: UUID, _ body: () async throws -> String) async -> String {
        do {
            return "answered " + (try await body()).replacingOccurrences(of: uuid.uuidString, with: "UUID")
        } catch let error as SalusError {
            return "\(error.code) \(error.message) \(error.field ?? "") \(error.value ?? "")"
                .replacingOccurrences(of: uuid.uuidString, with: "UUID")
        } catch {
            return "\(error)".replacingOccurrences(of: uuid.uuidString, with: "UUID")
        }
    }

    /// What reading by UUID and deleting by UUID tell `store` about `uuid`.
    static func byUUID(_ store: HealthStore, _ uuid: UUID) async -> [String] {
        [
            await outcome(uuid) { "\(try await AttachmentStore(healthStore: store).attachments(for: uuid))" },
            await outcome(uuid) { "\(try await ElectrocardiogramQueryDescriptor(uuid: uuid).result(for: store))" },
            await outcome(uuid) {
                let builder = WorkoutRouteBuilder(healthStore: store)
                builder.insertRouteData(RouteServiceTests.locations(3))
                return "\(try await builder.finishRoute(with: uuid))"
            },
            await outcome(uuid) { "\(try await store.delete(uuids: [uuid]))" },
        ]
    }

    @Test("an app learns nothing from a UUID whose row's type no plugin declares: the same answers as an absent UUID, for the app that wrote it and one that never could read it; the owner's reads do not trap")
    func readAndDeleteByUUID() async throws {
        let first = try await ServerHarness.start()
        let owner = try await Authz.owner(first)
        for app in ["org.example.writer", "org.example.other"] { _ = try await Authz.register(owner, app) }
        try await Authz.grant(owner, "org.example.writer", Authz.steps, read: .granted, share: .granted)
        try await Authz.grant(owner, "org.example.other", Authz.heartRate, read: .granted, share: .granted)
        let writer = try await first.healthStore("org.example.writer")
        let saved = try await writer.save(
            Sample(
                type: SampleType.quantity(.stepCount).identifier, startDate: RouteServiceTests.start, endDate: RouteServiceTests.at(60),
                value: .quantity(Quantity(value: 12, unit: .count)), sourceRevision: Sample.unsavedSource))
        await first.stop()
        // The plugin that declared the type is gone: its rows keep a type nothing declares.
        let path = first.dataDirectory.appendingPathComponent("salus.sqlite").path
        do {
            let database = try Database(path: path, create: false)
            defer { database.close() }
            try database.execute("UPDATE types SET identifier = '\(Self.gone)' WHERE identifier = '\(Authz.steps)'")
        }
        let server = try await first.restart()
        defer { Task { await server.stop() } }
        // The owner may read everything: no trap.
        let ownerStore = HealthStore(client: try await server.owner())
        let attachments = await Self.outcome(saved.uuid) {
            "\(try await AttachmentStore(healthStore: ownerStore).attachments(for: saved.uuid))"
        }
        #expect(attachments == "answered []", "\(attachments)")
        let voltages = await Self.outcome(saved.uuid) {
            "\(try await ElectrocardiogramQueryDescriptor(uuid: saved.uuid).result(for: ownerStore))"
        }
        #expect(voltages.hasPrefix("invalidArgument"), "\(voltages)")
        let absent = UUID()
        for app in ["org.example.writer", "org.example.other"] {
            let store = try await server.healthStore(app)
            let answers = await Self.byUUID(store, saved.uuid)
            let absentAnswers = await Self.byUUID(store, absent)
            #expect(answers == absentAnswers, "\(app)")
        }
        // Neither app deleted it.
        #expect(try await server.services.store.sample(uuid: saved.uuid)?.type.rawValue == Self.gone)
    }
}
