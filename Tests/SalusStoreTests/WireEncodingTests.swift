import Foundation
import NIOCore
import SalusModel
import SalusProto
import SalusStore
import SalusWire
import SwiftProtobuf
import Testing

/// The lean read path writes rows straight to wire bytes; a client must not be able to tell:
/// every page is byte for byte what SwiftProtobuf writes for the model path's messages.
@Suite("Rows straight to wire bytes")
struct WireEncodingTests {
    static let encoder = SampleWireEncoder { value, start, end in
        try Sample.encodedValue(value, startMicroseconds: start, endMicroseconds: end)
    }

    static func deterministic() -> BinaryEncodingOptions {
        var options = BinaryEncodingOptions()
        options.useDeterministicOrdering = true
        return options
    }

    static func bytes(_ samples: [Sample]) throws -> [UInt8] {
        var batch = Salus_V1_SampleBatch()
        batch.samples = samples.map(\.wire)
        return try batch.serializedBytes(options: deterministic())
    }

    /// Long enough that its length takes two bytes, and the sample's three.
    static let long = String(repeating: "Ω long text ", count: 2_000)

    static let everyMetadataValue: [String: MetadataValue] = [
        "org.example.note": .string("after lunch"),
        "org.example.empty": .string(""),
        "org.example.count": .number(-2.5),
        "org.example.zero": .number(0),
        "org.example.flag": .bool(true),
        "org.example.off": .bool(false),
        "org.example.when": .date(Date(timeIntervalSince1970: 1_700_000_123.456789)),
        "org.example.dose": .quantity(Quantity(value: 2.5, unit: .kilogram)),
        "org.example.nothing": .quantity(Quantity(value: 0, unit: .meter)),
        "org.example.long": .string(long),
        "HKMetadataKeyTimeZone": .string("Europe/Paris"),
    ]

    static let fullDevice = Device(
        name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,2",
        firmwareVersion: "1.2", softwareVersion: "10.1", localIdentifier: "", udiDeviceIdentifier: "(01)00888")

    /// One or more samples of every kind the lean path serves.
    static func samples() -> [Sample] {
        let workout = Workout(
            activityType: 82,
            events: [
                WorkoutEvent(type: 1, startDate: Fixtures.at(600), metadata: ["org.example.why": .string("traffic light")]),
                WorkoutEvent(type: 2, startDate: Fixtures.at(660)),
            ],
            activities: [
                WorkoutActivity(
                    activityType: 46, startDate: Fixtures.at(0), endDate: Fixtures.at(900),
                    metadata: ["HKIndoorWorkout": .bool(false)],
                    statistics: [Fixtures.distance: Quantity(value: 750, unit: .meter)]),
                WorkoutActivity(activityType: 13, startDate: Fixtures.at(900), endDate: Fixtures.at(2400)),
                WorkoutActivity(activityType: 37, startDate: Fixtures.at(2400), endDate: nil),
            ],
            statistics: [Fixtures.distance: Quantity(value: 12, unit: .kilometer)])
        let prescription = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Fixtures.at(0), expirationDate: Fixtures.at(86_400),
            rightEye: LensSpecification(
                sphere: -1.25, cylinder: -0.5, axis: 90, prism: VisionPrism(amount: 1, angle: 90, eye: 2)),
            leftEye: LensSpecification(sphere: -1))
        var samples: [Sample] = [
            Fixtures.quantity(72, start: 10, metadata: everyMetadataValue, device: fullDevice),
            Fixtures.quantity(0, start: 20, device: Device(name: "Phone")),
            // Before 1970: negative microseconds are ten-byte varints.
            Fixtures.quantity(3, start: -1_700_000_100),
            Fixtures.quantity(Fixtures.heartRate, 61.5, "count/min", start: 30, end: 31),
            Fixtures.quantity(Fixtures.bodyTemperature, 98.6, "degF", start: 40),
            Fixtures.quantity(Fixtures.distance, 1.5, "mi", start: 50, end: 600, device: Device(name: long)),
            Fixtures.category(0, start: 0, end: 60),
            Fixtures.category(5, start: 60, end: 120),
            Sample(
                type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(3600), value: .workout(workout),
                sourceRevision: Fixtures.app, device: fullDevice, metadata: ["HKIndoorWorkout": .bool(false)]),
            Sample(
                type: Fixtures.prescription, startDate: Fixtures.at(0), endDate: Fixtures.at(0),
                value: .visionPrescription(prescription), sourceRevision: Fixtures.app),
            OtherKindsStoreTests.ecg(Array(OtherKindsStoreTests.voltages.prefix(512)), metadata: ["org.example.lead": .string("I")]),
        ]
        samples += OtherKindsStoreTests.others
        return samples
    }

    static func populate(_ store: SampleStore) async throws -> [UUID] {
        var uuids: [UUID] = []
        for (source, part) in [(Fixtures.app, samples()), (Fixtures.otherApp, [Fixtures.quantity(9, start: 70)])] {
            uuids += try await store.save(part, source: source).results.map(\.uuid)
        }
        return uuids
    }

    static let types: [TypeIdentifier] = [
        Fixtures.steps, Fixtures.heartRate, Fixtures.bodyTemperature, Fixtures.distance, Fixtures.sleep,
        Fixtures.workout, Fixtures.prescription, Fixtures.electrocardiogram, Fixtures.audiogram,
        Fixtures.heartbeatSeries, Fixtures.stateOfMind, Fixtures.medicationDoseEvent, Fixtures.gad7, Fixtures.phq9,
        Fixtures.document, Fixtures.allergyRecord,
    ]

    @Test("a sample query's pages are SwiftProtobuf's bytes for every kind, metadata value type and device form")
    func sampleQueriesMatch() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await Self.populate(store)
        for type in Self.types {
            for sort in [[SampleSortDescriptor(.startDate)], [SampleSortDescriptor(.endDate, ascending: false)]] {
                let query = SampleQuery(type: type, sort: sort)
                let model = try await store.samples(query).collect()
                #expect(!model.isEmpty, "no \(type) saved")
                // Pages of 2: the concatenated pages are one SampleBatch of every sample.
                var lean: [UInt8] = []
                var count = 0
                for try await page in try store.samples(query, pageSize: 2).wire(Self.encoder) {
                    #expect(page.count <= 2)
                    lean += page.bytes.readableBytesView
                    count += page.count
                }
                #expect(count == model.count)
                let expected = try Self.bytes(model)
                let same = lean == expected
                #expect(same, "\(type) sorted by \(sort): \(lean.count) bytes beside SwiftProtobuf's \(expected.count)")
                let decoded = try Salus_V1_SampleBatch(serializedBytes: lean)
                #expect(decoded.samples.map(\.uuid) == model.map { WireUUID.bytes($0.uuid) })
            }
        }
        // A limit and a predicate are the model path's too.
        let query = SampleQuery(type: Fixtures.steps, predicate: .sources(["org.example.diary"]), limit: 2)
        var lean: [UInt8] = []
        for try await page in try store.samples(query, pageSize: 1).wire(Self.encoder) { lean += page.bytes.readableBytesView }
        let same = lean == (try Self.bytes(try await store.samples(query).collect()))
        #expect(same, "a limited query of steps from one app")
    }

    @Test("rows of one page that take turns between sources and devices are SwiftProtobuf's bytes (each read once per page)")
    func sharedSourcesAndDevices() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save(
            [
                Fixtures.quantity(1, start: 10, device: Self.fullDevice), Fixtures.quantity(2, start: 30, device: Device(name: "Phone")),
                Fixtures.quantity(3, start: 50, device: Self.fullDevice), Fixtures.quantity(4, start: 70),
            ], source: Fixtures.app)
        _ = try await store.save(
            [Fixtures.quantity(5, start: 20, device: Device(name: "Phone")), Fixtures.quantity(6, start: 40, device: Self.fullDevice)],
            source: Fixtures.otherApp)
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        let model = try await store.samples(query).collect()
        #expect(model.map(\.sourceRevision.appID) == [
            Fixtures.app.appID, Fixtures.otherApp.appID, Fixtures.app.appID, Fixtures.otherApp.appID, Fixtures.app.appID,
            Fixtures.app.appID,
        ])
        try await Self.expectPages(of: query, in: store, sizes: [6, 4], equal: model)
    }

    @Test("a sample query's wire pages grow from the first page's size, doubling up to the page size, and are the same bytes; a limit still cuts them")
    func growingPages() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<21).map { Fixtures.quantity(Double($0), start: Double($0) * 10) }, source: Fixtures.app)
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        let expected = try Self.bytes(try await store.samples(query).collect())
        var counts: [Int] = []
        var lean: [UInt8] = []
        for try await page in try store.samples(query, pageSize: 8).wire(Self.encoder, firstPageSize: 2) {
            counts.append(page.count)
            lean += page.bytes.readableBytesView
        }
        #expect(counts == [2, 4, 8, 7])
        #expect(lean == expected)
        // Without a first page size, every page is the page size, as before.
        counts = []
        for try await page in try store.samples(query, pageSize: 8).wire(Self.encoder) { counts.append(page.count) }
        #expect(counts == [8, 8, 5])
        // A limit of 5: 2, then 3 of the 4 the second page could hold.
        let limited = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)], limit: 5)
        counts = []
        lean = []
        for try await page in try store.samples(limited, pageSize: 8).wire(Self.encoder, firstPageSize: 2) {
            counts.append(page.count)
            lean += page.bytes.readableBytesView
        }
        #expect(counts == [2, 3])
        #expect(lean == (try Self.bytes(try await store.samples(limited).collect())))
    }

    @Test("the next wire page is read while the caller holds the one returned, and none is read after the last page or past the limit")
    func readAhead() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<21).map { Fixtures.quantity(Double($0), start: Double($0) * 10) }, source: Fixtures.app)
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        var pages = try store.samples(query, pageSize: 8).wire(Self.encoder, firstPageSize: 2).makeAsyncIterator()
        #expect(!pages.isReadingAhead)
        var seen: [(count: Int, ahead: Bool)] = []
        while let page = try await pages.next() { seen.append((page.count, pages.isReadingAhead)) }
        // After the 7 of a page that could hold 8, there is nothing left to read.
        #expect(seen.map(\.count) == [2, 4, 8, 7])
        #expect(seen.map(\.ahead) == [true, true, true, false])
        #expect(try await pages.next() == nil)
        // A limit of 6 ends with the second page: nothing is read past it.
        let limited = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)], limit: 6)
        pages = try store.samples(limited, pageSize: 8).wire(Self.encoder, firstPageSize: 2).makeAsyncIterator()
        seen = []
        while let page = try await pages.next() { seen.append((page.count, pages.isReadingAhead)) }
        #expect(seen.map(\.count) == [2, 4])
        #expect(seen.map(\.ahead) == [true, false])
        // Exactly a page's worth: the read after the full page finds nothing and ends the query.
        let exact = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)], limit: nil)
        var counts: [Int] = []
        for try await page in try store.samples(exact, pageSize: 21).wire(Self.encoder) { counts.append(page.count) }
        #expect(counts == [21])
    }

    @Test("a date-window query is read in two halves at once, and its pages are the same samples in the same order as one read, for either order and every window kind")
    func halves() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // Every 5 s over the window [0, 100], three more at its middle (50) saved last so their
        // row ids are out of start order, some spanning the window's ends, some outside it.
        var samples = (0...20).reversed().map { Fixtures.quantity(Double($0), start: Double($0) * 5) }
        samples += [Fixtures.quantity(100, start: -10, end: 10), Fixtures.quantity(101, start: 95, end: 130)]
        samples += [Fixtures.quantity(102, start: -50), Fixtures.quantity(103, start: 150)]
        _ = try await store.save(samples, source: Fixtures.app)
        _ = try await store.save((0..<3).map { Fixtures.quantity(200 + Double($0), start: 50) }, source: Fixtures.otherApp)
        for window in [
            DateWindow(start: Fixtures.at(0), end: Fixtures.at(100)),
            DateWindow(start: Fixtures.at(0), end: Fixtures.at(100), strictStartDate: true),
            DateWindow(start: Fixtures.at(0), end: Fixtures.at(100), strictEndDate: true),
        ] {
            for descending in [false, true] {
                let query = SampleQuery(
                    type: Fixtures.steps, predicate: .and([.dateWindow(window), .sources([Fixtures.app.appID, Fixtures.otherApp.appID])]),
                    sort: [SampleSortDescriptor(.startDate, ascending: !descending)])
                let model = try await store.samples(query).collect()
                #expect(model.count >= 22)
                var pages = try store.samples(query, pageSize: 4).wire(Self.encoder, firstPageSize: 2).makeAsyncIterator()
                #expect(pages.partCount == 2)
                var lean: [UInt8] = []
                var secondEarly = false
                while let page = try await pages.next() {
                    lean += page.bytes.readableBytesView
                    secondEarly = secondEarly || pages.isReadingSecondPart
                }
                #expect(secondEarly, "the second half is read while the first goes on")
                let same = lean == (try Self.bytes(model))
                #expect(same, "window \(window), descending \(descending): \(lean.count) bytes")
            }
        }
        // A window with less than a first page, and one whose first half is empty: the same
        // samples as one read.
        let few = SampleQuery(
            type: Fixtures.steps, predicate: .dateWindow(DateWindow(start: Fixtures.at(40), end: Fixtures.at(60))),
            sort: [SampleSortDescriptor(.startDate)])
        let late = SampleQuery(
            type: Fixtures.steps, predicate: .dateWindow(DateWindow(start: Fixtures.at(-300), end: Fixtures.at(110))),
            sort: [SampleSortDescriptor(.startDate)])
        for query in [few, late] {
            var pages = try store.samples(query, pageSize: 100).wire(Self.encoder, firstPageSize: 50).makeAsyncIterator()
            var lean: [UInt8] = []
            while let page = try await pages.next() { lean += page.bytes.readableBytesView }
            #expect(lean == (try Self.bytes(try await store.samples(query).collect())))
        }
        // A limit, another order, or no window: one part.
        for query in [
            SampleQuery(type: Fixtures.steps, predicate: few.predicate, sort: few.sort, limit: 3),
            SampleQuery(type: Fixtures.steps, predicate: few.predicate, sort: [SampleSortDescriptor(.endDate)]),
            SampleQuery(type: Fixtures.steps, predicate: .sources([Fixtures.app.appID])),
        ] {
            #expect(try store.samples(query, pageSize: 4).wire(Self.encoder).makeAsyncIterator().partCount == 1)
        }
    }

    @Test("windows at the ends of time, of no length or not finite: read in halves they give one read's samples, or the same refusal")
    func extremeHalves() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<9).map { Fixtures.quantity(Double($0), start: Double($0) * 10) }, source: Fixtures.app)
        for (start, end) in [
            (Date(timeIntervalSince1970: -1e300), Date(timeIntervalSince1970: 1e300)),
            (Date.distantPast, Fixtures.at(40)), (Fixtures.at(40), Date.distantFuture), (Fixtures.at(40), Fixtures.at(40)),
        ] {
            let query = SampleQuery(
                type: Fixtures.steps, predicate: .dateWindow(DateWindow(start: start, end: end)), sort: [SampleSortDescriptor(.startDate)])
            var lean: [UInt8] = []
            for try await page in try store.samples(query, pageSize: 2).wire(Self.encoder, firstPageSize: 1) { lean += page.bytes.readableBytesView }
            #expect(lean == (try Self.bytes(try await store.samples(query).collect())), "\(start) to \(end)")
        }
        let notFinite = SampleQuery(
            type: Fixtures.steps, predicate: .dateWindow(DateWindow(start: Date(timeIntervalSince1970: .nan), end: Fixtures.at(40))))
        #expect(throws: StoreError.self) { _ = try store.samples(notFinite, pageSize: 2).wire(Self.encoder) }
    }

    /// Expects the wire pages of `query`, at each page size, to be SwiftProtobuf's bytes for `model`.
    static func expectPages(of query: SampleQuery, in store: SampleStore, sizes: [Int], equal model: [Sample]) async throws {
        let expected = try bytes(model)
        for pageSize in sizes {
            var lean: [UInt8] = []
            for try await page in try store.samples(query, pageSize: pageSize).wire(encoder) { lean += page.bytes.readableBytesView }
            let same = lean == expected
            #expect(same, "pages of \(pageSize): \(lean.count) bytes beside SwiftProtobuf's \(expected.count)")
        }
    }

    @Test("a sample spanning the store's whole range (its end kept as text), beside instants and a negative start: pages and catch-up are SwiftProtobuf's bytes, in either order and through date windows")
    func widestSpans() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // The widest span int64 microseconds hold: its length overflows an int64, so the row keeps
        // its end as text; the encoder reads the span, not SQLite's virtual end.
        var wide = Fixtures.quantity(5, start: 0)
        wide.startDate = Date(timeIntervalSince1970: -9.2e12)
        wide.endDate = Date(timeIntervalSince1970: 9.2e12)
        var before1970 = Fixtures.quantity(6, start: 0)
        before1970.startDate = Date(timeIntervalSince1970: -86_400.25)
        before1970.endDate = Date(timeIntervalSince1970: -3_600)
        _ = try await store.save([wide, before1970, Fixtures.quantity(7, start: 30), Fixtures.quantity(8, start: 90)], source: Fixtures.app)
        let windows: [SamplePredicate?] = [
            nil,
            .date(start: Fixtures.base, end: Fixtures.base.addingTimeInterval(60)),
            .date(start: Fixtures.base.addingTimeInterval(60), end: nil, options: .strictEndDate),
            .date(start: Date(timeIntervalSince1970: -7_200), end: Date(timeIntervalSince1970: 0)),
        ]
        let counts = [4, 2, 2, 2]
        for (window, count) in zip(windows, counts) {
            for sort in [[SampleSortDescriptor(.startDate)], [SampleSortDescriptor(.endDate, ascending: false)]] {
                let query = SampleQuery(type: Fixtures.steps, predicate: window, sort: sort)
                let model = try await store.samples(query).collect()
                #expect(model.count == count, "\(String(describing: window)) \(sort)")
                #expect(model.contains { $0.startDate == wide.startDate && $0.endDate == wide.endDate }, "every window overlaps it")
                try await Self.expectPages(of: query, in: store, sizes: [1, 3], equal: model)
            }
        }
        let descriptors = [QueryDescriptor(type: Fixtures.steps)]
        let model = try await store.anchoredQuery(descriptors, anchor: nil)
        var lean = try await store.anchoredWire(descriptors, anchor: nil, limit: nil, encoder: Self.encoder)
        var batch = Salus_V1_AnchoredBatch()
        batch.added = model.added.map(\.wire)
        batch.anchor = model.anchor.rawValue
        batch.initialResultsComplete = true
        let same = Array(lean.batch(initialResultsComplete: true, moreChanges: false).readableBytesView)
            == (try batch.serializedBytes(options: Self.deterministic()))
        #expect(same && model.added.count == 4)
    }

    @Test("wire queries taking turns page by page on the same connections, and an anchored read between them, each get exactly their own bytes")
    func queriesTakeTurns() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await Self.populate(store)
        _ = try await store.save(
            [Fixtures.quantity(Fixtures.heartRate, 61, "count/min", start: 5, device: Self.fullDevice),
             Fixtures.quantity(Fixtures.heartRate, 62, "count/min", start: 15, metadata: ["org.example.note": .string("rest")])],
            source: Fixtures.otherApp)
        let queries = [
            SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)]),
            SampleQuery(type: Fixtures.heartRate, sort: [SampleSortDescriptor(.endDate, ascending: false)]),
            SampleQuery(type: Fixtures.sleep),
        ]
        var expected: [[UInt8]] = []
        for query in queries {
            let model = try await store.samples(query).collect()
            #expect(model.count >= 2, "\(query.type)")
            expected.append(try Self.bytes(model))
        }
        var iterators = try queries.map { try store.samples($0, pageSize: 1).wire(Self.encoder).makeAsyncIterator() }
        var lean: [[UInt8]] = Array(repeating: [], count: queries.count)
        var done = Array(repeating: false, count: queries.count)
        let descriptors = Self.types.map { QueryDescriptor(type: $0) }
        func anchoredBytes() async throws -> [UInt8] {
            var page = try await store.anchoredWire(descriptors, anchor: nil, limit: nil, encoder: Self.encoder)
            return Array(page.batch(initialResultsComplete: true, moreChanges: false).readableBytesView)
        }
        let anchored = try await anchoredBytes()
        while done.contains(false) {
            for index in queries.indices where !done[index] {
                if let page = try await iterators[index].next() { lean[index] += page.bytes.readableBytesView } else { done[index] = true }
            }
            // Another read between the pages, on the same connections.
            let again = try await anchoredBytes()
            #expect(again == anchored)
        }
        for index in queries.indices {
            let same = lean[index] == expected[index]
            #expect(same, "\(queries[index].type): \(lean[index].count) bytes beside SwiftProtobuf's \(expected[index].count)")
        }
    }

    @Test("a page's metadata read by id range leaves out the metadata of other samples in that range")
    func metadataByIDRange() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // Steps and heart rate saved in turns: a page of steps has ids 1, 3, 5…, dense enough to
        // be read as a range, and the heart-rate samples between them have metadata of their own.
        var batch: [Sample] = []
        for index in 0..<12 {
            let note: [String: MetadataValue] = ["org.example.note": .string("steps \(index)")]
            batch.append(Fixtures.quantity(Double(index), start: Double(index), metadata: index % 3 == 0 ? [:] : note))
            batch.append(
                Fixtures.quantity(
                    Fixtures.heartRate, 60 + Double(index), "count/min", start: Double(index),
                    metadata: ["org.example.note": .string("heart \(index)"), "org.example.rank": .number(Double(index))]))
        }
        _ = try await store.save(batch, source: Fixtures.app)
        for sort in [[SampleSortDescriptor(.startDate)], [SampleSortDescriptor(.startDate, ascending: false)]] {
            let query = SampleQuery(type: Fixtures.steps, sort: sort)
            let model = try await store.samples(query).collect()
            #expect(model.count == 12)
            try await Self.expectPages(of: query, in: store, sizes: [1, 2, 5, 12], equal: model)
        }
    }

    @Test("an anchored read's batches, with deleted objects and their sync keys, are SwiftProtobuf's bytes at every limit")
    func anchoredMatches() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuids = try await Self.populate(store)
        _ = try await store.save(
            [Fixtures.synced("rec-1", version: 1, value: 10), Fixtures.synced("rec-1", version: 2, value: 11)],
            source: Fixtures.app)
        _ = try await store.delete(Array(uuids.prefix(3)), requester: .owner)
        let descriptors = Self.types.map { QueryDescriptor(type: $0) }
        for limit in [nil, 1, 4, 7] as [Int?] {
            var anchor: Anchor?
            var pages = 0
            repeat {
                let model = try await store.anchoredQuery(descriptors, anchor: anchor, limit: limit)
                var lean = try await store.anchoredWire(descriptors, anchor: anchor, limit: limit, encoder: Self.encoder)
                var batch = Salus_V1_AnchoredBatch()
                batch.added = model.added.map(\.wire)
                batch.deleted = model.deleted.map(\.wire)
                batch.anchor = model.anchor.rawValue
                batch.initialResultsComplete = !model.hasMore
                batch.moreChanges = model.hasMore
                let same =
                    Array(lean.batch(initialResultsComplete: !lean.hasMore, moreChanges: lean.hasMore).readableBytesView)
                    == (try batch.serializedBytes(options: Self.deterministic()))
                #expect(
                    same,
                    "limit \(limit.map(String.init) ?? "none"), page \(pages)")
                #expect(lean.added == model.added.count && lean.deleted == model.deleted.count)
                #expect(lean.anchor == model.anchor && lean.hasMore == model.hasMore)
                pages += 1
                anchor = model.anchor
                if !model.hasMore { break }
            } while pages < 100
            #expect(pages > 0)
        }
    }

    @Test("a live wire feed delivers what the model feed delivers: initial pages, then each later change once")
    func liveFeedsMatch() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await Self.populate(store)
        let descriptors = [QueryDescriptor(type: Fixtures.steps), QueryDescriptor(type: Fixtures.sleep)]
        var model = try store.anchoredChanges(descriptors, from: nil, pageSize: 2).makeAsyncIterator()
        var wire = try store.anchoredWireChanges(descriptors, from: nil, pageSize: 2, encoder: Self.encoder)
            .makeAsyncIterator()
        func compareNext() async throws -> Bool {
            let expected = try #require(try await model.next())
            var got = try #require(try await wire.next())
            var batch = Salus_V1_AnchoredBatch()
            batch.added = expected.result.added.map(\.wire)
            batch.deleted = expected.result.deleted.map(\.wire)
            batch.anchor = expected.result.anchor.rawValue
            batch.initialResultsComplete = expected.initialResultsComplete
            #expect(got.initialResultsComplete == expected.initialResultsComplete)
            let same =
                Array(got.result.batch(initialResultsComplete: got.initialResultsComplete, moreChanges: false).readableBytesView)
                == (try batch.serializedBytes(options: Self.deterministic()))
            #expect(same, "a live batch of \(expected.result.added.count) added, \(expected.result.deleted.count) deleted")
            return expected.initialResultsComplete
        }
        var initialPages = 0
        while try await !compareNext() { initialPages += 1 }
        #expect(initialPages >= 2)
        let saved = try await store.save([Fixtures.quantity(5, start: 900)], source: Fixtures.app)
        _ = try await compareNext()
        _ = try await store.delete(saved.results.map(\.uuid), requester: .owner)
        _ = try await compareNext()
    }
}
