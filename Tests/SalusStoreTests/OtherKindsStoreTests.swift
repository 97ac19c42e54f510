import Foundation
import SalusModel
import SalusStore
import Testing

/// Electrocardiograms (and their voltages), audiograms, heartbeat series, states of mind,
/// medication dose events and scored assessments in the store.
@Suite("Other sample kinds in the store")
struct OtherKindsStoreTests {
    /// A 30-second recording at 512 Hz: 15,360 voltages, as Apple Watch records them.
    static let voltages = (0..<15_360).map { index in
        ElectrocardiogramVoltage(timeSinceSampleStart: Double(index) / 512, microvolts: sin(Double(index) / 40) * 900 + 0.125)
    }

    static func ecg(_ voltages: [ElectrocardiogramVoltage] = voltages, metadata: [String: MetadataValue] = [:]) -> Sample {
        Sample(
            type: Fixtures.electrocardiogram, startDate: Fixtures.at(0), endDate: Fixtures.at(30),
            value: .electrocardiogram(
                Electrocardiogram(
                    classification: .sinusRhythm, symptomsStatus: .none, averageHeartRate: 68, samplingFrequency: 512,
                    voltages: voltages)),
            sourceRevision: Fixtures.app, metadata: metadata)
    }

    /// One sample of each kind but electrocardiograms.
    static let others: [Sample] = [
        Sample(
            type: Fixtures.audiogram, startDate: Fixtures.at(0), endDate: Fixtures.at(600),
            value: .audiogram(
                Audiogram(sensitivityPoints: [
                    AudiogramSensitivityPoint(frequency: 1000, leftEar: 15, rightEar: 20),
                    AudiogramSensitivityPoint(
                        frequency: 2000,
                        tests: [
                            AudiogramSensitivityTest(
                                sensitivity: 45, masked: true, side: .left, clampingRange: AudiogramClampingRange(lowerBound: 40))
                        ]),
                ])),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.heartbeatSeries, startDate: Fixtures.at(0), endDate: Fixtures.at(60),
            value: .heartbeatSeries(
                HeartbeatSeries(beats: [
                    Heartbeat(timeSinceSeriesStart: 0.25), Heartbeat(timeSinceSeriesStart: 1.05),
                    Heartbeat(timeSinceSeriesStart: 9.5, precededByGap: true),
                ])),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.stateOfMind, startDate: Fixtures.at(100), endDate: Fixtures.at(100),
            value: .stateOfMind(StateOfMind(kind: .momentaryEmotion, valence: 0.4, labels: [.calm, .hopeful], associations: [.fitness])),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.medicationDoseEvent, startDate: Fixtures.at(200), endDate: Fixtures.at(200),
            value: .medicationDoseEvent(
                MedicationDoseEvent(
                    logStatus: .taken, scheduleType: .schedule, medicationConceptIdentifier: "levothyroxine-50",
                    scheduledDate: Fixtures.at(180), scheduledDoseQuantity: 1, doseQuantity: 1)),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.gad7, startDate: Fixtures.at(300), endDate: Fixtures.at(300),
            value: .scoredAssessment(
                ScoredAssessment(
                    instrument: .gad7,
                    answers: [.severalDays, .severalDays, .notAtAll, .moreThanHalfTheDays, .notAtAll, .severalDays, .nearlyEveryDay])),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.phq9, startDate: Fixtures.at(300), endDate: Fixtures.at(300),
            value: .scoredAssessment(
                ScoredAssessment(instrument: .phq9, answers: Array(repeating: .notAtAll, count: 8) + [.preferNotToAnswer])),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.document, startDate: Fixtures.at(400), endDate: Fixtures.at(400),
            value: .document(
                ClinicalDocument(
                    data: Data("<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>Note</title></ClinicalDocument>".utf8),
                    title: "Note", patientName: "Eve Betterhalf", authorName: "Henry Seven", custodianName: "Community Health",
                    effectiveTime: Fixtures.at(400))),
            sourceRevision: Fixtures.app),
        Sample(
            type: Fixtures.allergyRecord, startDate: Fixtures.at(500), endDate: Fixtures.at(500),
            value: .clinicalRecord(
                ClinicalRecord(
                    fhirData: Data(#"{"resourceType":"AllergyIntolerance","id":"a-1","code":{"text":"Penicillin"}}"#.utf8),
                    fhirVersion: "4.0.1", displayName: "Penicillin", sourceName: "Community Health",
                    sourceURL: "https://fhir.example.org/r4", receivedDate: Fixtures.at(450))),
            sourceRevision: Fixtures.app),
    ]

    /// How many voltage rows (blocks) the database holds.
    static func voltageBlocks(_ path: String) throws -> Int64 {
        let database = try Database(path: path, create: false, readOnly: true)
        defer { database.close() }
        return try database.scalarInt("SELECT count(*) FROM electrocardiogram_voltages") ?? -1
    }

    @Test("each kind saves, reads back equal, and deletes")
    func roundTrip() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save(Self.others, source: Fixtures.app)
        for (index, sample) in Self.others.enumerated() {
            let read = try await store.all(sample.type)
            #expect(read.map(\.value) == [sample.value], "\(sample.type)")
            #expect(read.map(\.uuid) == [saved.results[index].uuid])
            #expect(try await store.sample(uuid: saved.results[index].uuid)?.value == sample.value)
        }
        let deleted = try await store.delete(saved.results.map(\.uuid), requester: .app(Fixtures.app.appID))
        #expect(deleted.deleted == Self.others.count)
        for sample in Self.others {
            #expect(try await store.count(sample.type) == 0)
        }
        let changes = try await store.anchoredQuery(
            Self.others.map { QueryDescriptor(type: $0.type) }, anchor: saved.anchor)
        #expect(Set(changes.deleted.map(\.uuid)) == Set(saved.results.map(\.uuid)))
    }

    @Test("an electrocardiogram reads back without its voltages, which stream in order in blocks of 1,024")
    func electrocardiogramVoltages() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuid = try await store.save([Self.ecg()], source: Fixtures.app).results[0].uuid

        let read = try #require(try await store.all(Fixtures.electrocardiogram).first)
        guard case .electrocardiogram(let value) = read.value else {
            Issue.record("read \(read.value)")
            return
        }
        #expect(value.voltages.isEmpty)
        #expect(value.numberOfVoltageMeasurements == 15_360)
        #expect(value == Electrocardiogram(
            classification: .sinusRhythm, symptomsStatus: .none, averageHeartRate: 68, samplingFrequency: 512,
            numberOfVoltageMeasurements: 15_360))

        var chunks: [ElectrocardiogramVoltageChunk] = []
        for try await chunk in try store.electrocardiogramVoltages(of: uuid) { chunks.append(chunk) }
        #expect(chunks.count == 15)
        #expect(chunks.map(\.firstIndex) == Array(stride(from: 0, to: 15_360, by: 1024)))
        #expect(chunks.allSatisfy { $0.voltages.count == 1024 })
        #expect(chunks.flatMap(\.voltages) == Self.voltages)
        #expect(try Self.voltageBlocks(temporary.path) == 15)

        // An odd count: the last block is short.
        let short = try await store.save([Self.ecg(Array(Self.voltages.prefix(1500)))], source: Fixtures.app)
        var shortChunks: [Int] = []
        for try await chunk in try store.electrocardiogramVoltages(of: short.results[0].uuid) {
            shortChunks.append(chunk.voltages.count)
        }
        #expect(shortChunks == [1024, 476])
    }

    @Test("an electrocardiogram's voltages are deleted with it")
    func voltagesDeletedWithTheSample() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let kept = try await store.save([Self.ecg(Array(Self.voltages.prefix(2048)))], source: Fixtures.app).results[0].uuid
        let doomed = try await store.save([Self.ecg()], source: Fixtures.app).results[0].uuid
        #expect(try Self.voltageBlocks(temporary.path) == 17)

        _ = try await store.delete([doomed], requester: .app(Fixtures.app.appID))
        #expect(try Self.voltageBlocks(temporary.path) == 2)
        #expect(try await store.electrocardiogramVoltages(of: doomed).collect().isEmpty)
        #expect(try await store.electrocardiogramVoltages(of: kept).collect() == Array(Self.voltages.prefix(2048)))

        _ = try await store.delete(type: Fixtures.electrocardiogram, matching: nil, requester: .owner)
        #expect(try Self.voltageBlocks(temporary.path) == 0)
    }

    @Test("a sync-identifier replacement replaces the voltages too")
    func replacementReplacesVoltages() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        func synced(_ version: Double, _ voltages: [ElectrocardiogramVoltage]) -> Sample {
            Self.ecg(
                voltages,
                metadata: [MetadataKey.syncIdentifier: .string("ecg-1"), MetadataKey.syncVersion: .number(version)])
        }
        _ = try await store.save([synced(1, Self.voltages)], source: Fixtures.app)
        let replacement = Array(Self.voltages.suffix(100))
        let second = try await store.save([synced(2, replacement)], source: Fixtures.app).results[0]
        guard case .replaced = second.outcome else {
            Issue.record("outcome \(second.outcome)")
            return
        }
        #expect(try Self.voltageBlocks(temporary.path) == 1)
        #expect(try await store.electrocardiogramVoltages(of: second.uuid).collect() == replacement)
    }

    @Test("a failed batch leaves no voltages behind")
    func rolledBackBatch() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        var duplicate = Self.ecg()
        duplicate.uuid = UUIDv7.make()
        await #expect(throws: StoreError.self) {
            _ = try await store.save([duplicate, duplicate], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        }
        #expect(try Self.voltageBlocks(temporary.path) == 0)
        #expect(try await store.count(Fixtures.electrocardiogram) == 0)
    }

    @Test("a sample is found by UUID whatever its type; an unknown UUID finds nothing")
    func sampleByUUID() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuid = try await store.save([Fixtures.quantity(12)], source: Fixtures.app).results[0].uuid
        let found = try #require(try await store.sample(uuid: uuid))
        #expect(found.type == Fixtures.steps)
        #expect(found.sourceRevision == Fixtures.app)
        #expect(try await store.sample(uuid: UUID()) == nil)
    }
}
