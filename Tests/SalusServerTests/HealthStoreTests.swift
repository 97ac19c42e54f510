import Foundation
import SalusKit
import SalusModel
import SalusRPC
import Testing

/// SalusKit over the in-process transport, with the bundled plugins: what an app sees.
@Suite("SalusKit HealthStore")
struct HealthStoreTests {
    static let night = Date(timeIntervalSince1970: 1_795_218_600)  // 2026-11-20 21:30 UTC

    static func store(_ server: ServerHarness, _ appID: String) async throws -> HealthStore {
        try await server.healthStore(appID, name: "Test \(appID)", version: "3.1")
    }

    static func minutes(_ from: Int, _ to: Int) -> (Date, Date) {
        (night.addingTimeInterval(Double(from) * 60), night.addingTimeInterval(Double(to) * 60))
    }

    static func stage(_ value: CategoryValueSleepAnalysis, _ from: Int, _ to: Int, metadata: [String: MetadataValue] = [:]) -> Sample {
        let (start, end) = minutes(from, to)
        return .sleepAnalysis(value, start: start, end: end, metadata: metadata)
    }

    /// inBed 0–480, core 10–100, deep 100–160, REM 160–200, awake 200–210, core 210–300, REM 300–340.
    static let stages: [Sample] = [
        stage(.inBed, 0, 480), stage(.asleepCore, 10, 100), stage(.asleepDeep, 100, 160), stage(.asleepREM, 160, 200),
        stage(.awake, 200, 210), stage(.asleepCore, 210, 300), stage(.asleepREM, 300, 340),
    ]

    @Test("save returns daemon UUIDs; a sample query returns the samples with the caller's source, device and metadata")
    func saveAndQuery() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let watch = Device(name: "Band", manufacturer: "Acme", model: "B1")
        let steps = Sample.quantity(
            .stepCount, Quantity(value: 1200, unit: .count), start: Self.night, end: Self.night.addingTimeInterval(600),
            device: watch, metadata: [MetadataKey.wasUserEntered: .bool(true)]
        )
        let result = try await store.save(steps)
        #expect(result.outcome == .saved)
        #expect(result.uuid != steps.uuid, "the daemon assigns the UUID")
        #expect(result.anchor.rawValue > 0)

        let found = try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: store)
        #expect(found.count == 1)
        let sample = try #require(found.first)
        #expect(sample.uuid == result.uuid)
        #expect(sample.value == .quantity(Quantity(value: 1200, unit: .count)))
        #expect(sample.startDate == Self.night)
        #expect(sample.sourceRevision.appID == "org.example.kit")
        #expect(sample.sourceRevision.name == "Test org.example.kit")
        #expect(sample.sourceRevision.version == "3.1")
        #expect(sample.device == watch)
        #expect(sample.metadata[MetadataKey.wasUserEntered] == .bool(true))
        await store.close()
        await server.stop()
    }

    @Test("predicates: REM only, all asleep values, the value group, date windows, quantity, metadata, sources, UUIDs, not; sort and limit")
    func predicates() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let other = try await Self.store(server, "org.example.other")
        let saved = try await store.save(Self.stages)
        #expect(saved.map(\.outcome) == Array(repeating: .saved, count: Self.stages.count))
        try await other.save(Self.stage(.asleepREM, 600, 620))
        let sleep = SampleType.category(.sleepAnalysis)

        func query(_ predicate: SamplePredicate?, sort: [SampleSortDescriptor] = [.startDate()], limit: Int? = nil) async throws -> [Sample] {
            try await SampleQueryDescriptor(type: sleep, predicate: predicate, sortDescriptors: sort, limit: limit).result(for: store)
        }
        func values(_ samples: [Sample]) -> [CategoryValueSleepAnalysis] { samples.compactMap(\.sleepAnalysisValue) }

        let (start, end) = Self.minutes(0, 480)
        let window = SamplePredicate.date(start: start, end: end)
        #expect(values(try await query(window && .sleepAnalysis([.asleepREM]))) == [.asleepREM, .asleepREM])
        let asleep = try await query(window && .sleepAnalysis(.allAsleepValues))
        #expect(values(asleep) == [.asleepCore, .asleepDeep, .asleepREM, .asleepCore, .asleepREM])
        let group = try await query(window && .categoryValueGroup(CategoryValueSleepAnalysis.allAsleepValueGroup))
        #expect(group.map(\.uuid) == asleep.map(\.uuid))
        #expect(values(try await query(CategoryValueSleepAnalysis.predicateForSamples(equalTo: [.awake]))) == [.awake])

        // Overlap versus strict: a window of minutes 150–205 overlaps deep, REM and awake (and inBed).
        let (from, to) = Self.minutes(150, 205)
        #expect(values(try await query(.date(start: from, end: to) && !.sleepAnalysis([.inBed]))) == [.asleepDeep, .asleepREM, .awake])
        #expect(values(try await query(.date(start: from, end: to, options: [.strictStartDate]))) == [.asleepREM, .awake])
        #expect(values(try await query(.date(start: from, end: to, options: [.strictStartDate, .strictEndDate]))) == [.asleepREM])

        // Sources, UUIDs, sort, limit.
        #expect(try await query(.sources(["org.example.other"])).count == 1)
        #expect(try await query(nil).count == Self.stages.count + 1)
        #expect(try await query(.uuids([saved[2].uuid, saved[3].uuid])).map(\.uuid) == [saved[2].uuid, saved[3].uuid])
        let latest = try await query(nil, sort: [.startDate(ascending: false)], limit: 2)
        #expect(latest.map(\.sourceRevision.appID) == ["org.example.other", "org.example.kit"])
        #expect(values(latest) == [.asleepREM, .asleepREM])
        #expect(try await query(.or([])).isEmpty)

        // Quantities compare after unit conversion; metadata by value.
        try await store.save([
            .quantity(.distanceWalkingRunning, Quantity(value: 800, unit: .meter), start: start, metadata: ["org.example.kit.route": .string("park")]),
            .quantity(.distanceWalkingRunning, Quantity(value: 2.5, unit: .kilometer), start: end, metadata: ["org.example.kit.route": .string("river")]),
        ])
        let distance = SampleType.quantity(.distanceWalkingRunning)
        let long = try await SampleQueryDescriptor(
            type: distance, predicate: .quantity(.greaterThan, Quantity(value: 1, unit: .kilometer))
        ).result(for: store)
        #expect(long.map(\.value) == [.quantity(Quantity(value: 2.5, unit: .kilometer))])
        let park = try await SampleQueryDescriptor(
            type: distance, predicate: .metadata(key: "org.example.kit.route", equalTo: .string("park"))
        ).result(for: store)
        #expect(park.count == 1)
        #expect(try await SampleQueryDescriptor(type: distance, predicate: .metadataKeyExists("nope")).result(for: store).isEmpty)

        await store.close()
        await other.close()
        await server.stop()
    }

    @Test("a sample query streams pages one sample at a time, and stopping early cancels it")
    func streaming() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let samples = (0..<2_500).map { index in
            Sample.quantity(.stepCount, Quantity(value: Double(index), unit: .count), start: Self.night.addingTimeInterval(Double(index) * 60))
        }
        try await store.save(samples)
        var count = 0
        var last = -1.0
        for try await sample in SampleQueryDescriptor(type: .quantity(.stepCount), sortDescriptors: [.startDate()]).samples(for: store) {
            guard case .quantity(let quantity) = sample.value else { continue }
            #expect(quantity.value > last)
            last = quantity.value
            count += 1
        }
        #expect(count == 2_500)
        var seen = 0
        for try await _ in SampleQueryDescriptor(type: .quantity(.stepCount)).samples(for: store) {
            seen += 1
            if seen == 10 { break }
        }
        // The connection still serves after the abandoned query.
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount), limit: 3).result(for: store).count == 3)
        await store.close()
        await server.stop()
    }

    @Test("errors arrive as SalusError with the code, field, value and expected; a bad batch saves nothing")
    func errors() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let unknown = Sample(
            type: "org.example.nothing", startDate: Self.night, endDate: Self.night,
            value: .quantity(Quantity(value: 1, unit: .count)), sourceRevision: Sample.unsavedSource
        )
        let error = await #expect(throws: SalusError.self) {
            try await store.save([Self.stage(.asleepREM, 0, 10), unknown])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.field?.hasPrefix("samples[1]") == true)
        #expect(error?.message.contains("\"org.example.nothing\"") == true, "\(String(describing: error))")
        #expect(error?.expected?.isEmpty == false)
        #expect(error?.statusCode == 3)
        #expect(try await SampleQueryDescriptor(type: .category(.sleepAnalysis)).result(for: store).isEmpty)

        let wrongUnit = Sample.quantity(.stepCount, Quantity(value: 1, unit: .meter), start: Self.night)
        let unitError = await #expect(throws: SalusError.self) { try await store.save(wrongUnit) }
        #expect(unitError?.field?.hasPrefix("samples[0].quantity") == true)
        #expect(unitError?.value == "m" && unitError?.message.contains("not one of length") == true, "\(String(describing: unitError))")

        let badValue = Sample.category(.sleepAnalysis, value: 42, start: Self.night, end: Self.night.addingTimeInterval(60))
        let valueError = await #expect(throws: SalusError.self) { try await store.save(badValue) }
        #expect(valueError?.field?.hasPrefix("samples[0].category") == true)
        #expect(valueError?.message.contains("42") == true, "\(String(describing: valueError))")

        let unknownQuery = await #expect(throws: SalusError.self) {
            try await SampleQueryDescriptor(type: "").result(for: store)
        }
        #expect(unknownQuery?.field == "type")

        let unreachable = await #expect(throws: SalusError.self) {
            try await HealthStore.connect(socketPath: server.directory.appendingPathComponent("none.sock").path, appID: "org.example.kit")
        }
        #expect(unreachable?.code == .unavailable)
        await store.close()
        await server.stop()
    }

    @Test("sync identifiers: saved, kept existing, replaced; deletes by object, UUID and predicate; another app's sample is out of reach")
    func syncAndDelete() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let other = try await Self.store(server, "org.example.other")
        func synced(_ version: Double, _ value: CategoryValueSleepAnalysis) -> Sample {
            Self.stage(value, 0, 30, metadata: [MetadataKey.syncIdentifier: .string("night-1"), MetadataKey.syncVersion: .number(version)])
        }
        let first = try await store.save(synced(1, .asleepCore))
        #expect(first.outcome == .saved)
        let replay = try await store.save(synced(1, .asleepDeep))
        #expect(replay.outcome == .keptExisting)
        #expect(replay.uuid == first.uuid)
        let newer = try await store.save(synced(2, .asleepDeep))
        #expect(newer.outcome == .replaced(first.uuid))
        let sleep = SampleType.category(.sleepAnalysis)
        #expect(try await SampleQueryDescriptor(type: sleep).result(for: store).compactMap(\.sleepAnalysisValue) == [.asleepDeep])

        let theirs = try await other.save(Self.stage(.asleepREM, 40, 50))
        let refused = await #expect(throws: SalusError.self) { try await store.delete(uuids: [theirs.uuid]) }
        #expect(refused?.code == .notFound)
        #expect(try await SampleQueryDescriptor(type: sleep, predicate: .uuids([theirs.uuid])).result(for: other).count == 1)

        let more = try await store.save([Self.stage(.awake, 60, 70), Self.stage(.awake, 80, 90), Self.stage(.asleepREM, 90, 100)])
        let samples = try await SampleQueryDescriptor(type: sleep, predicate: .uuids([more[0].uuid])).result(for: store)
        #expect(try await store.delete(samples) == 1)
        #expect(try await store.deleteObjects(of: sleep, predicate: .sleepAnalysis([.awake])) == 1)
        // Deleting by predicate deletes only this app's samples.
        #expect(try await store.deleteObjects(of: sleep, predicate: .sleepAnalysis([.asleepREM])) == 1)
        #expect(try await SampleQueryDescriptor(type: sleep).result(for: other).map(\.uuid).sorted { $0.uuidString < $1.uuidString }
            == [newer.uuid, theirs.uuid].sorted { $0.uuidString < $1.uuidString })
        #expect(try await store.deleteObjects(of: sleep) == 1)
        await store.close()
        await other.close()
        await server.stop()
    }

    @Test("anchored queries: from the start, from an anchor with deletions and their sync keys, with a limit")
    func anchored() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await Self.store(server, "org.example.kit")
        let sleep = SampleTypePredicate(.category(.sleepAnalysis))
        let empty = try await AnchoredObjectQueryDescriptor(predicates: [sleep]).result(for: store)
        #expect(empty.addedSamples.isEmpty && empty.deletedObjects.isEmpty)

        let saved = try await store.save(Self.stages)
        let initial = try await AnchoredObjectQueryDescriptor(predicates: [sleep]).result(for: store)
        #expect(initial.addedSamples.map(\.uuid) == saved.map(\.uuid))
        #expect(initial.newAnchor == saved[0].anchor)

        let synced = try await store.save(Self.stage(
            .awake, 500, 510, metadata: [MetadataKey.syncIdentifier: .string("s"), MetadataKey.syncVersion: .number(1)]
        ))
        try await store.delete(uuids: [synced.uuid, saved[1].uuid])
        let changes = try await AnchoredObjectQueryDescriptor(predicates: [sleep], anchor: initial.newAnchor).result(for: store)
        // Added and deleted since the anchor: only the deletion is reported, as in HealthKit.
        #expect(changes.addedSamples.isEmpty)
        #expect(Set(changes.deletedObjects.map(\.uuid)) == [synced.uuid, saved[1].uuid])
        let tombstone = try #require(changes.deletedObjects.first { $0.uuid == synced.uuid })
        #expect(tombstone.metadata[MetadataKey.syncIdentifier] == .string("s"))
        #expect(tombstone.type.rawValue == CategoryTypeIdentifier.sleepAnalysis.rawValue)
        #expect(changes.newAnchor > initial.newAnchor)

        // Only REM, across two descriptors; other types stay out.
        try await store.save(.quantity(.stepCount, Quantity(value: 5, unit: .count), start: Self.night))
        let rem = try await AnchoredObjectQueryDescriptor(predicates: [
            .samples(.category(.sleepAnalysis), predicate: .sleepAnalysis([.asleepREM])),
            .samples(.quantity(.bodyMass)),
        ]).result(for: store)
        #expect(rem.addedSamples.compactMap(\.sleepAnalysisValue) == [.asleepREM, .asleepREM])

        // A limit pages through the changes.
        var anchor: QueryAnchor? = nil
        var pages = 0
        var added = 0
        repeat {
            let page = try await AnchoredObjectQueryDescriptor(predicates: [sleep], anchor: anchor, limit: 3).result(for: store)
            #expect(page.addedSamples.count + page.deletedObjects.count <= 3)
            added += page.addedSamples.count
            anchor = page.newAnchor
            pages += 1
            if !page.hasMore { break }
        } while pages < 20
        #expect(added == Self.stages.count - 1)
        #expect(pages >= 3)
        await store.close()
        await server.stop()
    }

    @Test("a live anchored query and an observer follow another connection's saves and deletes until cancelled")
    func live() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let follower = try await Self.store(server, "org.example.kit")
        let writer = try await Self.store(server, "org.example.writer")
        try await writer.save(Self.stage(.inBed, 0, 480))

        let query = AnchoredObjectQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis), predicate: .sleepAnalysis(.allAsleepValues))])
        var updates = query.results(for: follower).makeAsyncIterator()
        let initial = try #require(try await updates.next())
        #expect(initial.addedSamples.isEmpty, "inBed is not an asleep value")

        var notifications = ObserverQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis))]).results(for: follower).makeAsyncIterator()
        let start = try #require(try await notifications.next())
        #expect(start.isInitial)

        let rem = try await writer.save(Self.stage(.asleepREM, 100, 130))
        try await writer.save(Self.stage(.awake, 130, 140))
        let added = try #require(try await updates.next())
        #expect(added.addedSamples.map(\.uuid) == [rem.uuid])
        #expect(added.newAnchor == rem.anchor)
        let changed = try #require(try await notifications.next())
        #expect(changed.changedTypes == [.category(.sleepAnalysis)])
        #expect(changed.anchor == rem.anchor)

        try await writer.delete(uuids: [rem.uuid])
        var deleted: AnchoredObjectQueryResult
        repeat {
            deleted = try #require(try await updates.next())
        } while deleted.deletedObjects.isEmpty && deleted.addedSamples.isEmpty
        #expect(deleted.deletedObjects.map(\.uuid) == [rem.uuid])

        // A consumer task that is cancelled ends its loop with a cancellation, not a hang.
        let (started, delivered) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var seen = 0
            for try await _ in query.results(for: follower) {
                seen += 1
                delivered.yield()
            }
            return seen
        }
        // Cancel once the stream delivers.
        for await _ in started { break }
        consumer.cancel()
        let outcome = await consumer.result
        if case .failure(let error) = outcome {
            #expect((error as? SalusError)?.code == .cancelled)
        }
        // The connection still serves.
        #expect(try await SampleQueryDescriptor(type: .category(.sleepAnalysis)).result(for: follower).count == 2)
        await follower.close()
        await writer.close()
        await server.stop()
    }

    @Test("source queries name the apps and their devices; the owner's admin socket sees every app")
    func sources() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let kit = try await Self.store(server, "org.example.kit")
        let other = try await Self.store(server, "org.example.other")
        let band = Device(name: "Band", manufacturer: "Acme")
        try await kit.save(.quantity(.stepCount, Quantity(value: 10, unit: .count), start: Self.night, device: band))
        try await other.save(.quantity(.stepCount, Quantity(value: 20, unit: .count), start: Self.night))
        let sources = try await SourceQueryDescriptor(type: .quantity(.stepCount)).result(for: kit)
        #expect(sources.map(\.appID).sorted() == ["org.example.kit", "org.example.other"])
        #expect(sources.first { $0.appID == "org.example.kit" }?.devices == [band])
        #expect(sources.first { $0.appID == "org.example.kit" }?.name == "Test org.example.kit")
        let filtered = try await SourceQueryDescriptor(
            type: .quantity(.stepCount), predicate: .quantity(.greaterThan, Quantity(value: 15, unit: .count))
        ).result(for: kit)
        #expect(filtered.map(\.appID) == ["org.example.other"])

        let owner = HealthStore(client: try await server.owner(clientName: nil))
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: owner).count == 2)
        await owner.close()
        await kit.close()
        await other.close()
        await server.stop()
    }

    @Test("an anchor older than the tombstone retention is anchorExpired")
    func expiredAnchor() async throws {
        let first = try await ServerHarness.start(openAuthorization: true, tombstoneRetention: .seconds(1))
        let store = try await Self.store(first, "org.example.kit")
        let saved = try await store.save(Self.stage(.asleepREM, 0, 10))
        try await store.delete(uuids: [saved.uuid])
        await store.close()
        await first.stop()
        let second = try await first.restart()
        try await waitUntil("the tombstone has expired and is purged") { try await second.services.store.purgeExpiredTombstones().purged > 0 }
        let again = try await Self.store(second, "org.example.kit")
        let error = await #expect(throws: SalusError.self) {
            try await AnchoredObjectQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis))], anchor: saved.anchor).result(for: again)
        }
        #expect(error?.code == .anchorExpired)
        await again.close()
        await second.stop()
    }
}
