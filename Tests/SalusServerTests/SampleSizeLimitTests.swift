import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SalusWire
import Testing

/// What the store accepts it can give back: one sample is at most `Validation.maximumSampleBytes`
/// as it is read back, at every save and import, so that no sample is larger than the frames
/// that carry it on every read path (docs/protocol.md section 12).
@Suite("salus.v1.Store: the size of one sample")
struct SampleSizeLimitTests {
    static let bound = Validation.maximumSampleBytes
    static let cda = ClinicalDocumentServiceTests.cda
    static let allergy = ClinicalRecordServiceTests.allergy
    static let start: Int64 = 1_700_000_000_000_000

    /// A C-CDA example with a comment of `padding` bytes before its end tag.
    static func document(padding: Int, start: Int64 = start) throws -> Salus_V1_Sample {
        var sample = ClinicalDocumentServiceTests.document(try padded(padding), start: start)
        // What the daemon reads from the bytes replaces them: none sent.
        sample.document.title = ""
        sample.document.patientName = ""
        return sample
    }

    /// The bytes of `document(padding:)`, built once per size.
    static func padded(_ padding: Int) throws -> Data {
        var bytes = try ClinicalDocumentServiceTests.file("valid-hl7-examples", "CCD_1.xml")
        let end = Data("</ClinicalDocument>".utf8)
        let at = try #require(bytes.range(of: end, options: .backwards)).lowerBound
        bytes.replaceSubrange(at..<at, with: Data(("<!--" + String(repeating: "p", count: padding) + "-->").utf8))
        return bytes
    }

    /// A FHIR allergy whose note holds `padding` bytes.
    static func record(padding: Int, start: Int64 = start) -> Salus_V1_Sample {
        let json = #"{"resourceType":"AllergyIntolerance","id":"big","note":[{"text":""#
            + String(repeating: "n", count: padding) + #""}]}"#
        return ClinicalRecordServiceTests.record(allergy, Data(json.utf8), received: start)
    }

    /// The sample's size the daemon names in its refusal ("a sample of N bytes").
    static func size(_ error: RPCError?) -> Int? {
        guard let value = error?.detail?.value, value.hasPrefix("a sample of "), value.hasSuffix(" bytes") else { return nil }
        return Int(value.dropFirst("a sample of ".count).dropLast(" bytes".count))
    }

    /// Saves `make(padding)` shrunk by what the daemon says it is over the bound, until it is
    /// saved: the padding of a sample exactly at the bound, and its saved UUID. A sample over the
    /// bound is refused naming `field` (of the sample at index 0), and the next size is one the
    /// daemon counted.
    static func saveAtTheBound(
        _ client: RPCClient, start padding: Int, field: String, make: (Int) throws -> Salus_V1_Sample
    ) async throws -> (padding: Int, uuid: Data) {
        var padding = padding
        var refused = false
        for _ in 0..<3 {
            do {
                let saved = try await Authz.save(client, [try make(padding)])
                #expect(refused, "a sample over the bound was saved")
                return (padding, saved.results[0].uuid)
            } catch let error as RPCError {
                refused = true
                #expect(error.code == .invalidArgument, "\(error)")
                #expect(error.detail?.field == field, "\(error)")
                #expect(error.detail?.expected.contains("at most \(bound) bytes") == true, "\(error)")
                let size = try #require(Self.size(error), "\(error)")
                #expect(size > bound)
                padding -= size - bound
            }
        }
        Issue.record("no size saved")
        return (padding, Data())
    }

    static func query(_ client: RPCClient, _ type: String, uuid: Data? = nil, includeData: Bool = true) async throws -> [Salus_V1_Sample] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        request.includeData = includeData
        if let uuid { request.predicate.uuids.uuids = [uuid] }
        var samples: [Salus_V1_Sample] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.querySamples, request: request) {
            samples += batch.samples
        }
        return samples
    }

    static func anchored(_ client: RPCClient, _ type: String, limit: UInt64 = 0) async throws -> [Salus_V1_AnchoredBatch] {
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [Authz.descriptor(type)]
        request.limit = limit
        var batches: [Salus_V1_AnchoredBatch] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.queryAnchored, request: request) {
            batches.append(batch)
        }
        return batches
    }

    @Test("the bound is 512 KiB, and counts no less than the bytes a sample of every kind takes on the wire")
    func boundAndCount() throws {
        #expect(Self.bound == 512 << 10)
        let source = SourceRevision(appID: "org.example.size", name: "Size", version: "1.0", productType: "x86_64", osVersion: "6.1.0")
        var models: [Sample] = []
        for wire in [try Self.document(padding: 1_000), Self.record(padding: 1_000)] {
            var model = try Sample(wire: wire, path: "sample", source: source)
            model.device = Device(name: "Watch", manufacturer: "Apple Inc.", model: "Watch", softwareVersion: "10.1")
            model.metadata = ["org.example.note": .string("note"), "a": .bool(true), "b": .number(1), "c": .date(Date())]
            models.append(model)
        }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let metadata: [String: MetadataValue] = ["k": .quantity(Quantity(value: 1, unit: .meter)), "HKTimeZone": .string("Europe/Paris")]
        let workout = Workout(
            activityType: 37, configuration: WorkoutConfiguration(lapLength: Quantity(value: 25, unit: .meter)),
            events: (0..<5).map { WorkoutEvent(.lap, startDate: date + Double($0), metadata: metadata) },
            activities: [WorkoutActivity(activityType: 37, startDate: date, endDate: date + 60, metadata: metadata)],
            statistics: ["HKQuantityTypeIdentifierDistanceWalkingRunning": Quantity(value: 1000, unit: .meter)])
        models.append(
            Sample(
                type: "HKWorkoutTypeIdentifier", startDate: date, endDate: date + 60, value: .workout(workout), sourceRevision: source,
                metadata: metadata))
        let member = { (type: TypeIdentifier, value: Double) in
            Sample(
                type: type, startDate: date, endDate: date, value: .quantity(Quantity(value: value, unit: .millimeterOfMercury)),
                sourceRevision: source, metadata: metadata)
        }
        models.append(
            Sample(
                type: "HKCorrelationTypeIdentifierBloodPressure", startDate: date, endDate: date,
                value: .correlation(
                    Correlation(objects: [
                        member("HKQuantityTypeIdentifierBloodPressureSystolic", 120),
                        member("HKQuantityTypeIdentifierBloodPressureDiastolic", 80),
                    ])), sourceRevision: source, metadata: metadata))
        models.append(
            Sample(
                type: "HKDataTypeIdentifierHeartbeatSeries", startDate: date, endDate: date + 60,
                value: .heartbeatSeries(HeartbeatSeries(beats: (0..<100).map { Heartbeat(timeSinceSeriesStart: Double($0) / 2 + 0.25, precededByGap: true) })),
                sourceRevision: source))
        for model in models {
            // With the tag and length of the list that holds it.
            let bytes = try model.wire.serializedBytes() as [UInt8]
            #expect(model.readBytes >= bytes.count + 4, "\(model.type): counted \(model.readBytes), \(bytes.count) on the wire")
            #expect(model.readBytes <= 2 * bytes.count + 1_000, "\(model.type): counted \(model.readBytes), \(bytes.count) on the wire")
        }
    }

    @Test("a document exactly at the bound is saved and comes back whole from a query with its data, without, an anchored query and by UUID; a byte more is refused naming document.data, its size and the limit, and nothing of the request is saved")
    func document() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let app = try await server.app("org.example.clinic")
        let (padding, uuid) = try await Self.saveAtTheBound(
            app, start: Self.bound, field: "samples[0].document.data") { try Self.document(padding: $0) }
        let data = try Self.padded(padding)

        // A byte more, after a document that fits: neither is saved.
        let error = await Authz.error {
            _ = try await Authz.save(app, [try Self.document(padding: 100, start: Self.start), try Self.document(padding: padding + 1)])
        }
        #expect(error?.code == .invalidArgument && error?.detail?.field == "samples[1].document.data", "\(String(describing: error))")
        #expect(Self.size(error) == Self.bound + 1, "\(String(describing: error))")

        let withData = try await Self.query(app, Self.cda)
        #expect(withData.map(\.uuid) == [uuid] && withData.first?.document.data == data)
        let listed = try await Self.query(app, Self.cda, includeData: false)
        #expect(listed.map(\.uuid) == [uuid] && listed.first?.document.data.isEmpty == true)
        #expect(listed.first?.document.title == "Patient Chart Summary")
        let added = try await Self.anchored(app, Self.cda).flatMap(\.added)
        #expect(added.map(\.uuid) == [uuid] && added.first?.document.data == data)
        let limited = try await Self.anchored(app, Self.cda, limit: 10).flatMap(\.added)
        #expect(limited.map(\.uuid) == [uuid] && limited.first?.document.data == data)
        let byUUID = try await Self.query(app, Self.cda, uuid: uuid)
        #expect(byUUID.map(\.uuid) == [uuid] && byUUID.first?.document.data == data)
        await app.close()
    }

    @Test("a document the save's frame can carry but a read's page cannot is refused, and the type stays readable")
    func poison() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let app = try await server.app("org.example.clinic")
        _ = try await Authz.save(app, [try Self.document(padding: 300_000)])
        // 3.8 MB: one save request carries it, but a page of the earlier document (476 KB, under
        // the page's 1 MiB) and this one passes the 4 MiB frame.
        let error = await Authz.error { _ = try await Authz.save(app, [try Self.document(padding: 3_600_000)]) }
        #expect(error?.code == .invalidArgument && error?.detail?.field == "samples[0].document.data", "\(String(describing: error))")
        #expect(try await Self.query(app, Self.cda).count == 1)
        await app.close()
    }

    @Test("a clinical record exactly at the bound is saved and comes back whole from a query, an anchored query and by UUID; a byte more is refused naming clinicalRecord.fhirData, and nothing of the request is saved")
    func clinicalRecord() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let app = try await server.app("org.example.records")
        let (padding, uuid) = try await Self.saveAtTheBound(
            app, start: Self.bound, field: "samples[0].clinicalRecord.fhirData") { Self.record(padding: $0) }
        let fhir = Self.record(padding: padding).clinicalRecord.fhirData

        let error = await Authz.error {
            _ = try await Authz.save(
                app, [ClinicalRecordServiceTests.record(Self.allergy, ClinicalRecordServiceTests.penicillin, received: Self.start), Self.record(padding: padding + 1)])
        }
        #expect(error?.code == .invalidArgument && error?.detail?.field == "samples[1].clinicalRecord.fhirData", "\(String(describing: error))")
        #expect(Self.size(error) == Self.bound + 1, "\(String(describing: error))")

        let queried = try await Self.query(app, Self.allergy)
        #expect(queried.map(\.uuid) == [uuid] && queried.first?.clinicalRecord.fhirData == fhir)
        let added = try await Self.anchored(app, Self.allergy).flatMap(\.added)
        #expect(added.map(\.uuid) == [uuid] && added.first?.clinicalRecord.fhirData == fhir)
        let limited = try await Self.anchored(app, Self.allergy, limit: 10).flatMap(\.added)
        #expect(limited.map(\.uuid) == [uuid] && limited.first?.clinicalRecord.fhirData == fhir)
        let byUUID = try await Self.query(app, Self.allergy, uuid: uuid)
        #expect(byUUID.map(\.uuid) == [uuid] && byUUID.first?.clinicalRecord.fhirData == fhir)
        await app.close()
    }

    @Test("a workout whose events, a correlation whose members, and a sample whose device pass the bound together are refused naming that part; nothing is saved")
    func otherParts() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let app = try await server.app("org.example.large")
        let source = SourceRevision(appID: "", name: "")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        // Each part under the metadata limit; together past the sample's.
        let note: [String: MetadataValue] = ["org.example.note": .string(String(repeating: "n", count: 120_000))]
        let workout = Sample(
            type: "HKWorkoutTypeIdentifier", startDate: date, endDate: date + 600,
            value: .workout(Workout(activityType: 37, events: (0..<5).map { WorkoutEvent(.marker, startDate: date + Double($0), metadata: note) })),
            sourceRevision: source)
        let big: [String: MetadataValue] = ["org.example.note": .string(String(repeating: "n", count: 250_000))]
        let member = { (type: TypeIdentifier, value: Double) in
            Sample(
                type: type, startDate: date, endDate: date, value: .quantity(Quantity(value: value, unit: .millimeterOfMercury)),
                sourceRevision: source, metadata: big)
        }
        let pressure = Sample(
            type: "HKCorrelationTypeIdentifierBloodPressure", startDate: date, endDate: date,
            value: .correlation(
                Correlation(objects: [
                    member("HKQuantityTypeIdentifierBloodPressureSystolic", 120),
                    member("HKQuantityTypeIdentifierBloodPressureDiastolic", 80),
                ])), sourceRevision: source, metadata: note)
        var steps = StoreServiceTests.stepSample(10, start: Self.start)
        steps.device.name = String(repeating: "d", count: 400_000)
        steps.device.model = String(repeating: "m", count: 200_000)
        let cases: [(sample: Salus_V1_Sample, field: String)] = [
            (workout.wire, "samples[1].workout.events"), (pressure.wire, "samples[1].correlation.objects"), (steps, "samples[1].device"),
        ]
        for (sample, field) in cases {
            let error = await Authz.error {
                _ = try await Authz.save(app, [StoreServiceTests.stepSample(1, start: Self.start), sample])
            }
            #expect(error?.code == .invalidArgument && error?.detail?.field == field, "\(String(describing: error))")
            #expect(error?.detail?.expected.contains("at most \(Self.bound) bytes") == true, "\(String(describing: error))")
            #expect((Self.size(error) ?? 0) > Self.bound, "\(String(describing: error))")
        }
        #expect(try await StoreServiceTests.all(app).isEmpty)
        #expect(try await Self.query(app, "HKWorkoutTypeIdentifier").isEmpty)
        #expect(try await Self.query(app, "HKCorrelationTypeIdentifierBloodPressure").isEmpty)
        await app.close()
    }

    @Test("the fullest pages: 1,995 deletions with sync identifiers of 1,024 bytes, samples of just under 1 MiB and one at the bound, asked for 2,000 changes at a time, come back whole in frames of at most 1 MiB and one change more")
    func fullestAnchoredPage() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let app = try await server.app("org.example.large")
        let identifier = String(repeating: "i", count: 1_000)
        let deleted = (0..<1_995).map {
            StoreServiceTests.stepSample(
                1, start: Self.start + Int64($0) * 60_000_000,
                metadata: [
                    MetadataKey.syncIdentifier: StoreServiceTests.string(identifier + String(format: "%024d", $0)),
                    MetadataKey.syncVersion: StoreServiceTests.number(1),
                ])
        }
        _ = try await Authz.save(app, deleted)
        var request = Salus_V1_DeleteRequest()
        request.matching = Authz.descriptor(StoreServiceTests.steps)
        let _: Salus_V1_DeleteResponse = try await app.unary(SalusMethods.Store.delete, request: request)
        // Four samples of 250,000 bytes of metadata: 1,000,000 bytes, under the page's 1 MiB.
        let notes = (0..<4).map {
            StoreServiceTests.stepSample(
                2, start: Self.start + Int64($0) * 60_000_000,
                metadata: ["org.example.note": StoreServiceTests.string(String(repeating: "n", count: 250_000))])
        }
        _ = try await Authz.save(app, notes)
        // One at the bound: its metadata at the metadata limit, the rest in its device.
        var last = StoreServiceTests.stepSample(
            3, start: Self.start, metadata: ["org.example.note": StoreServiceTests.string(String(repeating: "n", count: 250_000))])
        last.device.name = ""
        let (_, uuid) = try await Self.saveAtTheBound(app, start: Self.bound - 250_000, field: "samples[0].device") { padding in
            var sample = last
            sample.device.name = String(repeating: "d", count: padding)
            return sample
        }
        // Deletions weigh in a page's size as samples do: the page ends once its changes reach
        // 1 MiB, so no frame holds more than that and the change that reached it.
        let (batches, _) = try await StoreServiceTests.limitedPages(app, Authz.descriptor(StoreServiceTests.steps), limit: 2_000) { [$0] }
        let deletedCount = batches.map(\.deleted.count).reduce(0, +)
        let added = batches.flatMap(\.added)
        #expect(deletedCount == 1_995 && added.count == 5, "\(deletedCount) deleted, \(added.count) added")
        #expect(added.last?.uuid == uuid)
        #expect(batches.count > 1)
        for batch in batches {
            #expect((try batch.serializedBytes() as [UInt8]).count <= (1 << 20) + Self.bound + 4_096)
        }
        await app.close()
    }

    @Test("an imported clinical record whose FHIR file passes the bound is a problem naming its file, its size and the limit; the export's other records are imported")
    func importRefused() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await server.owner()
        let export = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2026-03-01 10:00:00 -0500"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="imm-1" sourceName="Mercy Clinic" fhirVersion="4.0.1" receivedDate="2026-02-02 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-1.json"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="imm-2" sourceName="Mercy Clinic" fhirVersion="4.0.1" receivedDate="2026-02-03 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-2.json"/>
            </HealthData>
            """.utf8)
        let large = Data(
            (#"{"resourceType":"Immunization","id":"2","status":"completed","note":[{"text":""#
                + String(repeating: "n", count: Self.bound) + #""}]}"#).utf8)
        let files = [
            ("clinical-records/Immunization-1.json", ImportSideFileTests.immunization), ("clinical-records/Immunization-2.json", large),
        ]
        let report = try await ImportServiceTests.importExport(owner, export, sideFiles: files, chunk: 1 << 20)
        #expect(report.saved == 1 && report.skipped == 1, "\(report.saved) saved, \(report.skipped) skipped")
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1 && problem.line == 5, "\(report.problems)")
        #expect(problem.value == "clinical-records/Immunization-2.json: \(large.count) bytes", "\(problem)")
        #expect(problem.expected.contains("at most \(Self.bound) bytes"), "\(problem)")
        let records = try await ImportServiceTests.samples(owner, "HKClinicalTypeIdentifierImmunizationRecord")
        #expect(records.map(\.clinicalRecord.fhirData) == [ImportSideFileTests.immunization])
        await owner.close()
    }
}
