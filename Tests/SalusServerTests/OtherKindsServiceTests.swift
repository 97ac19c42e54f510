import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SalusWire
import Testing

/// Electrocardiograms, audiograms, heartbeat series, states of mind, medication dose events and
/// scored assessments through the store service, in process: saved and queried with SalusKit,
/// read per type as the owner allows, ECG voltages streamed in chunks.
///
/// No bundled plugin registers these types yet; the harness registers them beside the plugins'.
@Suite("Other sample kinds through the store service")
struct OtherKindsServiceTests {
    static let types: [TypeRules] = [
        TypeRules(identifier: SampleType.electrocardiogram.description, kind: .electrocardiogram, displayName: "ECG"),
        TypeRules(identifier: SampleType.audiogram.description, kind: .audiogram),
        TypeRules(identifier: SampleType.heartbeatSeries.description, kind: .heartbeatSeries),
        TypeRules(identifier: SampleType.stateOfMind.description, kind: .stateOfMind),
        TypeRules(identifier: SampleType.medicationDoseEvent.description, kind: .medicationDoseEvent),
        TypeRules(identifier: SampleType.gad7Assessment.description, kind: .scoredAssessment),
        TypeRules(identifier: SampleType.phq9Assessment.description, kind: .scoredAssessment),
    ]

    static func start(openAuthorization: Bool = false) async throws -> ServerHarness {
        try await ServerHarness.start(openAuthorization: openAuthorization, additionalTypes: types)
    }

    static let morning = Date(timeIntervalSince1970: 1_795_250_000)

    /// A 30-second recording at 512 Hz.
    static let voltages = (0..<15_360).map { index in
        ElectrocardiogramVoltage(timeSinceSampleStart: Double(index) / 512, microvolts: cos(Double(index) / 35) * 650 - 20)
    }

    static let ecg = Sample.electrocardiogram(
        Electrocardiogram(
            classification: .sinusRhythm, symptomsStatus: .present, averageHeartRate: 72, samplingFrequency: 512,
            voltages: voltages),
        start: morning, end: morning.addingTimeInterval(30))

    /// One sample of each kind, made as an app makes them.
    static let samples: [Sample] = [
        ecg,
        .audiogram(
            Audiogram(sensitivityPoints: [
                AudiogramSensitivityPoint(frequency: 500, leftEar: 10, rightEar: 5),
                AudiogramSensitivityPoint(frequency: 4000, leftEar: 35, rightEar: 40),
            ]),
            start: morning, end: morning.addingTimeInterval(900)),
        .heartbeatSeries(
            HeartbeatSeries(beats: [
                Heartbeat(timeSinceSeriesStart: 0.4), Heartbeat(timeSinceSeriesStart: 1.25),
                Heartbeat(timeSinceSeriesStart: 2.05),
            ]),
            start: morning, end: morning.addingTimeInterval(60)),
        .stateOfMind(
            StateOfMind(kind: .momentaryEmotion, valence: 0.75, labels: [.joyful, .grateful], associations: [.friends]),
            date: morning),
        .medicationDoseEvent(
            MedicationDoseEvent(
                logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: "paracetamol-500",
                doseQuantity: 2),
            start: morning),
        .scoredAssessment(.gad7, answers: [.severalDays, .notAtAll, .notAtAll, .severalDays, .moreThanHalfTheDays, .notAtAll, .severalDays], date: morning),
        .scoredAssessment(
            .phq9,
            answers: [.nearlyEveryDay, .nearlyEveryDay, .moreThanHalfTheDays, .nearlyEveryDay, .nearlyEveryDay, .nearlyEveryDay,
                      .moreThanHalfTheDays, .severalDays, .preferNotToAnswer],
            date: morning),
    ]

    @Test("each kind saves through the service and a sample query returns it; the ECG without its voltages")
    func saveAndQueryEachKind() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.clinic")
        let results = try await store.save(Self.samples)
        #expect(results.map(\.outcome) == Array(repeating: .saved, count: Self.samples.count))

        for (index, sample) in Self.samples.enumerated() {
            let found = try await SampleQueryDescriptor(type: SampleType(sample.type)).result(for: store)
            #expect(found.map(\.uuid) == [results[index].uuid], "\(sample.type)")
            let value = try #require(found.first?.value)
            if case .electrocardiogram(let ecg) = sample.value {
                #expect(value == .electrocardiogram(ecg.withoutVoltages))
            } else {
                #expect(value == sample.value, "\(sample.type)")
            }
        }
        let found = try await SampleQueryDescriptor(type: .electrocardiogram).result(for: store)
        #expect(found.first?.electrocardiogram?.numberOfVoltageMeasurements == 15_360)
        #expect(found.first?.electrocardiogram?.voltages == [])
        let mood = try await SampleQueryDescriptor(type: .stateOfMind).result(for: store)
        #expect(mood.first?.stateOfMind?.valenceClassification == .veryPleasant)
        let phq9 = try await SampleQueryDescriptor(type: .phq9Assessment).result(for: store)
        #expect(phq9.first?.scoredAssessment?.score == 20)
        #expect(phq9.first?.scoredAssessment?.risk == .severe)
        await store.close()
        await server.stop()
    }

    @Test("the model's rules refuse a bad sample through the service, naming the field and saving nothing")
    func refusals() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.clinic")
        let bad = Sample.stateOfMind(StateOfMind(kind: .dailyMood, valence: 1.5), date: Self.morning)
        let error = try await #require(throws: SalusError.self) { try await store.save([Self.samples[1], bad]) }
        #expect(error.code == .invalidArgument)
        #expect(error.field == "samples[1].stateOfMind.valence")
        #expect(error.value == "1.5")
        #expect(try await SampleQueryDescriptor(type: .audiogram).result(for: store).isEmpty)

        let tooFew = Sample.scoredAssessment(.phq9, answers: [.notAtAll], date: Self.morning)
        let countError = try await #require(throws: SalusError.self) { try await store.save(tooFew) }
        #expect(countError.field == "samples[0].scoredAssessment.answers")
        #expect(countError.value == "1 answers")
        await store.close()
        await server.stop()
    }

    @Test("an ECG's 15,360 voltages stream in 15 chunks of 1,024, in order; stopping early cancels the rest")
    func voltagesStreamInChunks() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.ecg")
        let uuid = try await store.save(Self.ecg).uuid

        var request = Salus_V1_ElectrocardiogramVoltageQueryRequest()
        request.uuid = WireUUID.bytes(uuid)
        var batches: [Salus_V1_ElectrocardiogramVoltageBatch] = []
        for try await batch in try store.client.serverStreaming(
            SalusMethods.Store.queryElectrocardiogramVoltages, request: request)
        {
            batches.append(batch)
        }
        #expect(batches.count == 15)
        #expect(batches.map(\.firstIndex) == (0..<15).map { UInt64($0 * 1024) })
        #expect(batches.map(\.voltages.count) == Array(repeating: 1024, count: 15))

        let streamed = try await ElectrocardiogramQueryDescriptor(uuid: uuid).result(for: store)
        #expect(streamed == Self.voltages)

        // Stopping early cancels the rest.
        var first: [ElectrocardiogramVoltage] = []
        for try await voltage in ElectrocardiogramQueryDescriptor(uuid: uuid).voltages(for: store) {
            first.append(voltage)
            if first.count == 10 { break }
        }
        #expect(first == Array(Self.voltages.prefix(10)))
        await store.close()
        await server.stop()
    }

    @Test("a voltage stream whose reader grants no credit reads no further block from the database")
    func voltagesReadOnlyWithCredit() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.ecg")
        // More blocks than the initial window, so that the window runs out before the end.
        let window = RPCServer.Configuration().initialWindow
        let blocks = window + 6
        let voltages = (0..<(blocks * 1024)).map {
            ElectrocardiogramVoltage(timeSinceSampleStart: Double($0) / 1024, microvolts: Double($0 % 100))
        }
        let uuid = try await store.save(Sample.electrocardiogram(
            Electrocardiogram(classification: .sinusRhythm, samplingFrequency: 1024, voltages: voltages),
            start: Self.morning, end: Self.morning.addingTimeInterval(Double(blocks)))).uuid
        var request = Salus_V1_ElectrocardiogramVoltageQueryRequest()
        request.uuid = WireUUID.bytes(uuid)
        let before = server.services.store.electrocardiogramBlocksRead
        // Started and never read: the client grants nothing after the first window.
        let stream = try store.client.serverStreaming(
            SalusMethods.Store.queryElectrocardiogramVoltages, request: request)
        try await waitUntil(timeout: .seconds(60), "the first window is read") { server.services.store.electrocardiogramBlocksRead - before >= window }
        // Time for a read ahead of the credit to show, if there were one.
        try await Task.sleep(for: .milliseconds(150))
        #expect(server.services.store.electrocardiogramBlocksRead - before == window)
        // Reading grants credit: the rest follows, whole.
        var firstIndexes: [UInt64] = []
        for try await batch in stream { firstIndexes.append(batch.firstIndex) }
        #expect(firstIndexes == (0..<blocks).map { UInt64($0 * 1024) })
        await store.close()
        await server.stop()
    }

    @Test("reading an ECG and its voltages needs read permission for its type; a denied reader gets what an unknown UUID gets")
    func perTypeReadAuthorization() async throws {
        let server = try await Self.start()
        let owner = try await Authz.owner(server)
        let ecg = SampleType.electrocardiogram.description
        let mood = SampleType.stateOfMind.description
        try await Authz.register(owner, "org.example.recorder", type: ecg, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.recorder", mood, read: nil, share: .granted)
        try await Authz.register(owner, "org.example.cardiology", type: ecg, read: .granted, share: nil)
        try await Authz.register(owner, "org.example.moods", type: mood, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.moods", ecg, read: .denied, share: nil)

        let recorder = try await server.healthStore("org.example.recorder")
        let saved = try await recorder.save([Self.ecg, Self.samples[3]])
        let ecgUUID = saved[0].uuid

        // The writer reads back its own ECG and voltages with share permission alone.
        #expect(try await SampleQueryDescriptor(type: .electrocardiogram).result(for: recorder).map(\.uuid) == [ecgUUID])
        #expect(try await ElectrocardiogramQueryDescriptor(uuid: ecgUUID).result(for: recorder).count == 15_360)

        // Read granted for ECGs: the sample and its voltages.
        let cardiology = try await server.healthStore("org.example.cardiology")
        #expect(try await SampleQueryDescriptor(type: .electrocardiogram).result(for: cardiology).map(\.uuid) == [ecgUUID])
        #expect(try await ElectrocardiogramQueryDescriptor(uuid: ecgUUID).result(for: cardiology) == Self.voltages)
        #expect(try await SampleQueryDescriptor(type: .stateOfMind).result(for: cardiology).isEmpty)

        // Read granted for states of mind only: no ECG, and its voltages are "not found".
        let moods = try await server.healthStore("org.example.moods")
        #expect(try await SampleQueryDescriptor(type: .stateOfMind).result(for: moods).count == 1)
        #expect(try await SampleQueryDescriptor(type: .electrocardiogram).result(for: moods).isEmpty)
        let denied = try await #require(throws: SalusError.self) {
            _ = try await ElectrocardiogramQueryDescriptor(uuid: ecgUUID).result(for: moods)
        }
        let unknown = try await #require(throws: SalusError.self) {
            _ = try await ElectrocardiogramQueryDescriptor(uuid: UUIDv7.make()).result(for: moods)
        }
        #expect(denied.code == .notFound)
        #expect(unknown.code == .notFound)
        #expect(denied.field == "uuid")
        #expect(denied.expected == unknown.expected)

        // The owner reads everything.
        let ownerStore = HealthStore(client: owner)
        #expect(try await ElectrocardiogramQueryDescriptor(uuid: ecgUUID).result(for: ownerStore).count == 15_360)
        for store in [recorder, cardiology, moods] { await store.close() }
        await owner.close()
        await server.stop()
    }

    @Test("the voltage query refuses a malformed UUID and a sample of another kind, naming uuid")
    func voltageQueryRefusals() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.clinic")
        var request = Salus_V1_ElectrocardiogramVoltageQueryRequest()
        request.uuid = Data([1, 2, 3])
        let malformed = await Authz.error {
            for try await _ in try store.client.serverStreaming(
                SalusMethods.Store.queryElectrocardiogramVoltages, request: request) {}
        }
        #expect(malformed?.code == .invalidArgument)
        #expect(malformed?.detail?.field == "uuid")
        #expect(malformed?.detail?.value == "3 bytes")

        let moodUUID = try await store.save(Self.samples[3]).uuid
        let wrongKind = try await #require(throws: SalusError.self) {
            _ = try await ElectrocardiogramQueryDescriptor(uuid: moodUUID).result(for: store)
        }
        #expect(wrongKind.code == .invalidArgument)
        #expect(wrongKind.field == "uuid")
        #expect(wrongKind.expected?.contains("stateOfMind sample of HKDataTypeStateOfMind") == true)
        await store.close()
        await server.stop()
    }

    @Test("an ECG too large for one frame fails with resourceExhausted and nothing is saved")
    func ecgOverTheFrameLimit() async throws {
        let server = try await Self.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.ecg")
        let huge = Sample.electrocardiogram(
            Electrocardiogram(
                classification: .notSet,
                voltages: (0..<200_000).map { ElectrocardiogramVoltage(timeSinceSampleStart: Double($0) / 10_000, microvolts: 1.5) }),
            start: Self.morning, end: Self.morning.addingTimeInterval(20))
        let error = try await #require(throws: SalusError.self) { try await store.save(huge) }
        #expect(error.code == .resourceExhausted)
        #expect(try await store.save(Self.ecg).outcome == .saved)
        #expect(try await SampleQueryDescriptor(type: .electrocardiogram).result(for: store).count == 1)
        await store.close()
        await server.stop()
    }
}
