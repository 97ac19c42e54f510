import Foundation
@testable import SalusAdmin
import SalusKit
import SalusModel
@testable import SalusServer
import SalusProto
import Synchronization
import Testing

/// The access log and each app's own data, through the owner's client in process: what two
/// apps did, counted and timed; a denied read leaving no trace; one app's data deleted and
/// another app's live feed receiving exactly those deletions; the log gone after its retention.
@Suite("Access log and an app's data")
struct AccessLogTests {
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let fit = "org.example.fit"
    static let counter = "org.example.counter"
    /// 2026-11-20 14:00 UTC.
    static let base = Date(timeIntervalSince1970: 1_795_183_200)

    /// A clock the test moves.
    final class TestClock: Sendable {
        let now = Mutex(AccessLogTests.base)
        func set(_ date: Date) { now.withLock { $0 = date } }
        func at(minutes: Double) { set(AccessLogTests.base.addingTimeInterval(minutes * 60)) }
        var read: @Sendable () -> Date { { [self] in now.withLock { $0 } } }
    }

    static func heart(_ value: Double, minute: Double) -> Sample {
        .quantity(.heartRate, Quantity(value: value, unit: .countPerMinute), start: base.addingTimeInterval(minute * 60 - 86_400))
    }

    static func step(_ value: Double, minute: Double) -> Sample {
        .quantity(.stepCount, Quantity(value: value, unit: .count), start: base.addingTimeInterval(minute * 60 - 86_400))
    }

    /// Two registered apps: fit reads and writes heart rate and reads steps; counter writes steps
    /// and reads nothing (heart rate denied).
    static func twoApps(_ server: ServerHarness, _ admin: AdminClient) async throws {
        _ = try await admin.addApp(fit, name: "Fit", readUsage: "to show your trends", writeUsage: "to record workouts")
        _ = try await admin.addApp(counter, name: "Counter", readUsage: "to show your steps", writeUsage: "to count steps")
        try await admin.setGrants(
            [TypeGrant(type: heartRate, read: .granted, share: .granted), TypeGrant(type: steps, read: .granted, share: .denied)],
            for: fit)
        try await admin.setGrants(
            [TypeGrant(type: heartRate, read: .denied, share: .denied), TypeGrant(type: steps, read: .denied, share: .granted)],
            for: counter)
    }

    @Test("two apps read and write: the log counts each app, type and kind of access with its first and last time; a denied read leaves no entry; deleting one app's data reaches another app's live feed exactly; the log is gone after its retention")
    func doneWhen() async throws {
        let server = try await ServerHarness.start()
        let clock = TestClock()
        server.services.accessLog.setClock(clock.read)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        let fit = try await server.healthStore(Self.fit)
        let counter = try await server.healthStore(Self.counter)

        // 14:00 counter saves three step samples in one call; 14:01 fit opens a live feed of steps.
        clock.at(minutes: 0)
        let saved = try await counter.save([Self.step(100, minute: 0), Self.step(200, minute: 10), Self.step(300, minute: 20)])
        clock.at(minutes: 1)
        var feed = AnchoredObjectQueryDescriptor(predicates: [.samples(.quantity(.stepCount))]).results(for: fit).makeAsyncIterator()
        let initial = try #require(try await feed.next())
        #expect(Set(initial.addedSamples.map(\.uuid)) == Set(saved.map(\.uuid)))
        // 14:02 and 14:05 fit saves heart rates; 14:03 and 14:07 it reads them back.
        clock.at(minutes: 2)
        _ = try await fit.save([Self.heart(61, minute: 0), Self.heart(64, minute: 5)])
        clock.at(minutes: 3)
        #expect(try await SampleQueryDescriptor(type: SampleType(Self.heartRate)).result(for: fit).count == 2)
        clock.at(minutes: 5)
        _ = try await fit.save(Self.heart(70, minute: 9))
        clock.at(minutes: 7)
        #expect(try await SampleQueryDescriptor(type: SampleType(Self.heartRate)).result(for: fit).count == 3)
        // 14:08 counter, denied heart rate, asks for it: it reads nothing, and leaves no trace.
        clock.at(minutes: 8)
        #expect(try await SampleQueryDescriptor(type: SampleType(Self.heartRate)).result(for: counter).isEmpty)
        // 14:09 counter reads its own steps (share granted, read not: its own samples).
        clock.at(minutes: 9)
        #expect(try await SampleQueryDescriptor(type: SampleType(Self.steps)).result(for: counter).count == 3)

        let log = try await admin.accessLog()
        struct Row: Hashable {
            var app: String, type: String, kind: SalusAdmin.AccessKind, count: Int, first: Double, last: Double
        }
        func minutes(_ date: Date) -> Double { date.timeIntervalSince(Self.base) / 60 }
        let rows = Set(log.entries.map { (entry: SalusAdmin.AccessLogEntry) -> Row in
            Row(
                app: entry.appID, type: entry.type, kind: entry.kind, count: entry.count, first: minutes(entry.first),
                last: minutes(entry.last))
        })
        let expected: Set<Row> = [
            Row(app: Self.counter, type: Self.steps, kind: .write, count: 1, first: 0, last: 0),
            Row(app: Self.fit, type: Self.steps, kind: .liveFeed, count: 1, first: 1, last: 1),
            Row(app: Self.fit, type: Self.heartRate, kind: .write, count: 2, first: 2, last: 5),
            Row(app: Self.fit, type: Self.heartRate, kind: .sampleQuery, count: 2, first: 3, last: 7),
            Row(app: Self.counter, type: Self.steps, kind: .sampleQuery, count: 1, first: 9, last: 9),
        ]
        #expect(rows == expected)
        #expect(!log.entries.contains { $0.appID == Self.counter && $0.type == Self.heartRate }, "a denied read leaves no entry")
        let lasts = log.entries.map(\.last)
        #expect(lasts == lasts.sorted(by: >), "newest first")
        #expect(log.entries.allSatisfy { $0.hour == Self.base }, "all within the hour starting 14:00")
        #expect(log.retention == .seconds(30 * 86_400))

        // What `salusctl access --json` prints, and the sentences it prints without --json.
        let json = try JSONSerialization.jsonObject(with: Data(try AdminJSON.text(accessLog: log).utf8)) as? [String: Any]
        let entries = try #require(json?["entries"] as? [[String: Any]])
        let reads = try #require(entries.first { $0["appId"] as? String == Self.fit && $0["kind"] as? String == "ACCESS_KIND_SAMPLE_QUERY" })
        #expect(reads["count"] as? Int == 2)
        #expect(reads["first"] as? Int64 == Int64(Self.base.timeIntervalSince1970 + 180) * 1_000_000)
        #expect(reads["last"] as? Int64 == Int64(Self.base.timeIntervalSince1970 + 420) * 1_000_000)
        #expect(json?["retentionSeconds"] as? Int == 30 * 86_400)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let text = AccessLogText.lines(log.entries, now: Self.base.addingTimeInterval(600), calendar: utc).map(\.text)
        #expect(text == [
            "org.example.counter read step count once today, last at 14:09, through a sample query",
            "org.example.fit read heart rate twice today, last at 14:07, through a sample query",
            "org.example.fit wrote heart rate twice today, last at 14:05",
            "org.example.fit read step count once today, last at 14:01, through a live feed",
            "org.example.counter wrote step count once today, last at 14:00",
        ])
        let fitOnly = try await admin.accessLog(appID: Self.fit).entries
        #expect(fitOnly.count == 3 && fitOnly.allSatisfy { $0.appID == Self.fit })
        let recent = try await admin.accessLog(since: Self.base.addingTimeInterval(360)).entries
        #expect(recent.count == 2)

        // What counter wrote, then its deletion: a dry run deletes nothing.
        let written = try await admin.appData(Self.counter)
        #expect(written.registered)
        #expect(written.types.map(\.type) == [Self.steps])
        #expect(written.types.first?.count == 3)
        #expect(written.types.first?.first == Self.base.addingTimeInterval(-86_400))
        let dry = try await admin.deleteAppData(Self.counter, dryRun: true)
        #expect(dry.total == 3)
        #expect(try await admin.appData(Self.counter).total == 3)
        clock.at(minutes: 12)
        let deleted = try await admin.deleteAppData(Self.counter)
        #expect(deleted.total == 3)
        #expect(try await admin.appData(Self.counter).types.isEmpty)
        #expect(try await admin.appData(Self.fit).total == 3, "another app's data stays")

        // fit's live feed receives exactly those three deletions, and nothing else.
        var gone: [UUID] = []
        while gone.count < 3 {
            let update = try #require(try await feed.next())
            #expect(update.addedSamples.isEmpty)
            gone += update.deletedObjects.map(\.uuid)
        }
        #expect(gone.sorted { $0.uuidString < $1.uuidString } == saved.map(\.uuid).sorted { $0.uuidString < $1.uuidString })

        // The owner's deletion is not an app's access: the log counts no deletion.
        let afterDeletion = try await admin.accessLog().entries
        #expect(afterDeletion.allSatisfy { $0.kind != .delete })

        // 31 days later everything is past the retention, and gone.
        clock.set(Self.base.addingTimeInterval(31 * 86_400))
        #expect(try await admin.accessLog().entries.isEmpty)
        await fit.close()
        await counter.close()
        await admin.close()
        await server.stop()
    }

    @Test("an unknown app, a type the app never wrote, an empty or reversed range: a precise error and nothing deleted")
    func badInput() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        let counter = try await server.healthStore(Self.counter)
        _ = try await counter.save([Self.step(100, minute: 0), Self.step(200, minute: 10)])

        func failure(_ body: () async throws -> Void) async -> SalusError? {
            do {
                try await body()
                return nil
            } catch let error as SalusError {
                return error
            } catch {
                return nil
            }
        }
        let unknown = await failure { _ = try await admin.deleteAppData("org.example.nobody") }
        #expect(unknown?.code == .notFound)
        #expect(unknown?.message.contains("no app org.example.nobody is registered") == true)
        let never = await failure { _ = try await admin.deleteAppData(Self.counter, AppDataSelection(types: [Self.heartRate])) }
        #expect(never?.code == .notFound)
        #expect(never?.message == "org.example.counter never wrote \(Self.heartRate) (it wrote \(Self.steps))")
        let future = Self.base.addingTimeInterval(86_400)
        let empty = await failure { _ = try await admin.deleteAppData(Self.counter, AppDataSelection(since: future)) }
        #expect(empty?.code == .notFound)
        #expect(empty?.field == "since")
        let reversed = await failure {
            _ = try await admin.deleteAppData(Self.counter, AppDataSelection(since: future, until: Self.base))
        }
        #expect(reversed?.code == .invalidArgument)
        #expect(reversed?.field == "until")
        let unknownType = await failure { _ = try await admin.deleteAppData(Self.counter, AppDataSelection(types: ["HKNoSuchType"])) }
        #expect(unknownType?.code == .invalidArgument)
        #expect(unknownType?.field == "types[0]")
        #expect(try await admin.appData(Self.counter).total == 2, "nothing was deleted")
        let noLog = await failure { _ = try await admin.accessLog(appID: "org.example.nobody") }
        #expect(noLog?.code == .notFound)
        let badRetention = await failure { try await admin.setAccessLogRetention(.seconds(60)) }
        #expect(badRetention?.field == "retention_seconds")

        // A range deletes only what starts in it.
        let first = Self.base.addingTimeInterval(-86_400)
        let part = try await admin.deleteAppData(
            Self.counter, AppDataSelection(types: [Self.steps], since: first, until: first.addingTimeInterval(300)))
        #expect(part.total == 1)
        #expect(try await admin.appData(Self.counter).total == 1)
        await counter.close()
        await admin.close()
        await server.stop()
    }

    @Test("the counts outlive a restart (written at close), and a shorter retention purges at once")
    func keptAcrossRestartAndRetention() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        let counter = try await server.healthStore(Self.counter)
        _ = try await counter.save(Self.step(100, minute: 0))
        await counter.close()
        await admin.close()
        await server.stop()
        let again = try await server.restart()
        let owner = AdminClient(rpc: try await again.owner(clientName: "salusctl"))
        let entries = try await owner.accessLog().entries
        #expect(entries.map(\.kind) == [.write])
        #expect(entries.first?.appID == Self.counter)
        #expect(try await owner.setAccessLogRetention(.seconds(3_600)) == .seconds(3_600))
        #expect(try await owner.accessLogRetention() == .seconds(3_600))
        again.services.accessLog.setClock { Date().addingTimeInterval(7_200) }
        #expect(try await owner.accessLog().entries.isEmpty)
        await owner.close()
        await again.stop()
    }

    @Test("a retention of 0 turns the log off: what it held is gone, nothing an app does afterwards is recorded, and it stays off after a restart")
    func offRecordsNothing() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        let fit = try await server.healthStore(Self.fit)
        _ = try await fit.save(Self.heart(61, minute: 0))
        #expect(try await admin.accessLog().entries.map(\.kind) == [.write])
        #expect(try await admin.setAccessLogRetention(.zero) == .zero)
        #expect(try await admin.accessLog().entries.isEmpty, "what the log held is gone")
        _ = try await fit.save(Self.heart(64, minute: 5))
        #expect(try await SampleQueryDescriptor(type: SampleType(Self.heartRate)).result(for: fit).count == 2)
        let log = try await admin.accessLog()
        #expect(log.entries.isEmpty, "nothing recorded while off")
        #expect(log.retention == .zero)
        await fit.close()
        await admin.close()
        await server.stop()
        let again = try await server.restart()
        let owner = AdminClient(rpc: try await again.owner(clientName: "salusctl"))
        let app = try await again.healthStore(Self.fit)
        _ = try await app.save(Self.heart(70, minute: 9))
        #expect(try await owner.accessLogRetention() == .zero)
        #expect(try await owner.accessLog().entries.isEmpty, "still off after a restart")
        #expect(try await owner.setAccessLogRetention(.seconds(86_400)) == .seconds(86_400))
        _ = try await app.save(Self.heart(72, minute: 10))
        #expect(try await owner.accessLog().entries.map(\.kind) == [.write], "on again, it records")
        await app.close()
        await owner.close()
        await again.stop()
    }

    @Test("apps show --json: the app's settings with what it wrote per type (count, first and last start), as the text form lists it")
    func showJSONListsWrites() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        let counter = try await server.healthStore(Self.counter)
        _ = try await counter.save([Self.step(100, minute: 0), Self.step(200, minute: 10)])
        let json = try AdminJSON.text(app: try await admin.app(Self.counter), wrote: try await admin.appData(Self.counter))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        #expect(object["appId"] as? String == Self.counter)
        #expect(object["grants"] != nil, "the app's settings are kept: \(json)")
        let wrote = try #require(object["wrote"] as? [[String: Any]], "\(json)")
        #expect(wrote.count == 1)
        #expect(wrote.first?["type"] as? String == Self.steps)
        #expect((wrote.first?["count"] as? NSNumber)?.intValue == 2)
        let first = Self.base.addingTimeInterval(-86_400)
        #expect((wrote.first?["first"] as? NSNumber)?.int64Value == Int64(first.timeIntervalSince1970 * 1_000_000))
        #expect((wrote.first?["last"] as? NSNumber)?.int64Value == Int64(first.addingTimeInterval(600).timeIntervalSince1970 * 1_000_000))
        let fit = try AdminJSON.text(app: try await admin.app(Self.fit), wrote: try await admin.appData(Self.fit))
        #expect(fit.hasSuffix(",\"wrote\":[]}"), "an app that wrote nothing: an empty list, \(fit)")
        await counter.close()
        await admin.close()
        await server.stop()
    }

    struct Interrupted: Error {}

    @Test("a deletion of an app's data stopped between two types leaves the first wholly deleted and the second untouched; run again, it deletes the rest")
    func interruptedDeletionFinishes() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        try await Self.twoApps(server, admin)
        try await admin.setGrants(
            [TypeGrant(type: Self.heartRate, read: .granted, share: .granted), TypeGrant(type: Self.steps, read: .granted, share: .granted)],
            for: Self.fit)
        let fit = try await server.healthStore(Self.fit)
        _ = try await fit.save([Self.heart(61, minute: 0), Self.heart(64, minute: 5), Self.step(100, minute: 0)])
        let services = server.services
        var service = AccessLogService(
            log: services.accessLog, store: services.store, registry: services.plugins.registry, authorization: services.authorization)
        service.afterTypeDeleted = { _ in throw Interrupted() }
        var request = Salus_V1_AppDataRequest()
        request.appID = Self.fit
        await #expect(throws: Interrupted.self) { _ = try await service.delete(request) }
        let left = try await admin.appData(Self.fit)
        #expect(left.types.map(\.type) == [Self.steps], "heart rate (first) wholly deleted, steps untouched")
        #expect(left.types.first?.count == 1)
        service.afterTypeDeleted = nil
        let rest = try await service.delete(request)
        #expect(rest.types.map(\.type) == [Self.steps])
        #expect(rest.types.first?.count == 1)
        #expect(try await admin.appData(Self.fit).total == 0)
        await fit.close()
        await admin.close()
        await server.stop()
    }
}
