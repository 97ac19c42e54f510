import Foundation
import SalusImport
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// The Apple Health export written by `AppleHealthWriter`, read back by the importer into a fresh
/// store: the same samples, field by field, and nothing more when read again.
@Suite("Apple Health export round trip")
struct AppleHealthExportTests {
    static let morning = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { morning.addingTimeInterval(seconds) }
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let workoutType = "HKWorkoutTypeIdentifier"
    static let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,7", softwareVersion: "10.2")

    /// What the person saved: records with metadata (boolean, quantity, text), sleep stages by
    /// value name, a blood pressure correlation and a run with events, an activity and totals.
    static func history() throws -> [Sample] {
        let celsius = try SalusUnit(parsing: "degC")
        var run = Workout(
            activityType: WorkoutActivityType.running,
            events: [
                WorkoutEvent(.pause, startDate: at(86_400 + 600)),
                WorkoutEvent(.resume, startDate: at(86_400 + 660)),
                WorkoutEvent(.segment, startDate: at(86_400 + 60), endDate: at(86_400 + 540)),
                WorkoutEvent(.lap, startDate: at(86_400 + 900), metadata: ["HKLapLength": .quantity(Quantity(value: 400, unit: .meter))]),
            ],
            activities: [WorkoutActivity(activityType: WorkoutActivityType.running, startDate: at(86_400), endDate: at(86_400 + 1800))],
            statistics: [
                TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning"): Quantity(value: 5012.5, unit: .meter),
                TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned"): Quantity(value: 312, unit: .kilocalorie),
            ])
        run.configuration.locationType = .outdoor
        return [
            .quantity(.stepCount, Quantity(value: 1234, unit: .count), start: at(0), end: at(600), device: watch,
                      metadata: ["HKWasUserEntered": .bool(true), "org.example.note": .string("after lunch & coffee <3")]),
            .quantity(.stepCount, Quantity(value: 88, unit: .count), start: at(600), end: at(1200)),
            .quantity(.heartRate, Quantity(value: 61.5, unit: perMinute), start: at(300), device: watch,
                      metadata: ["HKMetadataKeyHeartRateMotionContext": .number(1)]),
            .sleepAnalysis(.asleepCore, start: at(-7200), end: at(-5400), metadata: ["HKTimeZone": .string("Europe/Paris")]),
            .sleepAnalysis(.asleepREM, start: at(-5400), end: at(-3600)),
            .sleepAnalysis(.inBed, start: at(-7300), end: at(-3500)),
            .bloodPressure(systolic: 121, diastolic: 79, start: at(3600), device: watch, metadata: ["HKWasUserEntered": .bool(false)]),
            Sample(
                type: TypeIdentifier(workoutType), startDate: at(86_400), endDate: at(86_400 + 1800), value: .workout(run),
                sourceRevision: Sample.unsavedSource, device: watch,
                metadata: ["HKWeatherTemperature": .quantity(Quantity(value: 18.5, unit: celsius)), "HKIndoorWorkout": .bool(false)]),
            Sample(
                type: "HKDataTypeIdentifierAudiogram", startDate: at(7200), endDate: at(7500),
                value: .audiogram(Audiogram(sensitivityPoints: [
                    AudiogramSensitivityPoint(frequency: 500, leftEar: 10, rightEar: 15),
                    AudiogramSensitivityPoint(frequency: 4000, tests: [
                        AudiogramSensitivityTest(sensitivity: 35, masked: true, side: .left, clampingRange: AudiogramClampingRange(upperBound: 80)),
                        AudiogramSensitivityTest(sensitivity: 20, side: .right),
                    ]),
                ])),
                sourceRevision: Sample.unsavedSource),
            Sample(
                type: "HKVisionPrescriptionTypeIdentifier", startDate: at(-86_400), endDate: at(-86_400),
                value: .visionPrescription(VisionPrescription(
                    prescriptionType: .glasses, dateIssued: at(-86_400), expirationDate: at(2 * 365 * 86_400),
                    rightEye: LensSpecification(sphere: -1.25, cylinder: -0.5, axis: 90, farPupillaryDistance: 31),
                    leftEye: LensSpecification(sphere: -1))),
                sourceRevision: Sample.unsavedSource),
        ]
    }

    static let types = [
        "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate", "HKCategoryTypeIdentifierSleepAnalysis",
        "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
        "HKCorrelationTypeIdentifierBloodPressure", workoutType, "HKDataTypeIdentifierAudiogram", "HKVisionPrescriptionTypeIdentifier",
    ]

    /// Every sample of `types` in `store`, by type then start.
    static func everything(_ store: HealthStore) async throws -> [String: [Sample]] {
        var result: [String: [Sample]] = [:]
        for type in types {
            result[type] = try await SampleQueryDescriptor(type: SampleType(type), sortDescriptors: [.startDate()]).result(for: store)
                .sorted { ($0.startDate, $0.endDate, "\($0.value)") < ($1.startDate, $1.endDate, "\($1.value)") }
        }
        return result
    }

    /// `samples` written as export.xml, in the order Apple writes elements, dates in New York's
    /// offsets.
    static func export(_ samples: [String: [Sample]], server: ServerHarness, to path: String) throws {
        let writer = try AppleHealthWriter(
            path: path, names: ExportNames(catalog: server.services.plugins.registry.catalog),
            timeZone: TimeZone(identifier: "America/New_York")!)
        try writer.begin(exportDate: morning, locale: "en_US", characteristics: [
            Characteristic(type: .biologicalSex, value: .enumeration(1)),
            Characteristic(type: .dateOfBirth, value: .date(CalendarDate(year: 1984, month: 2, day: 29))),
            Characteristic(type: .fitzpatrickSkinType, value: .enumeration(3)),
        ])
        let ordered = samples.values.joined().sorted {
            (AppleHealthWriter.rank(of: $0.kind) ?? 9, $0.startDate) < (AppleHealthWriter.rank(of: $1.kind) ?? 9, $1.startDate)
        }
        for sample in ordered { #expect(try writer.write(sample)) }
        try writer.activitySummaries([
            ActivityGoals(from: CalendarDate(year: 2026, month: 11, day: 1), activeEnergyBurned: 450, appleMoveTime: 30, appleExerciseTime: 25, appleStandHours: 10)
        ])
        try writer.finish()
    }

    @Test("side files of samples saved in the same minute, starting in the same minute, get names of their own")
    func sideFileNamesDiffer() async throws {
        let server = try await ServerHarness.start()
        let path = server.directory.appendingPathComponent("names.xml").path
        let writer = try AppleHealthWriter(
            path: path, names: ExportNames(catalog: server.services.plugins.registry.catalog), timeZone: TimeZone(identifier: "UTC")!)
        // Two UUIDv7 assigned in one millisecond share their first twelve digits.
        let first = UUID(uuidString: "0190C2A4-1B2C-7000-8000-000000000001")!
        let second = UUID(uuidString: "0190C2A4-1B2C-7000-8000-000000000002")!
        var samples: [Sample] = []
        for uuid in [first, second] {
            var sample = Sample.quantity(.stepCount, Quantity(value: 1, unit: .count), start: Self.morning, end: Self.morning)
            sample.uuid = uuid
            samples.append(sample)
        }
        #expect(writer.routePath(of: samples[0]) != writer.routePath(of: samples[1]))
        #expect(writer.electrocardiogramPath(of: samples[0]) != writer.electrocardiogramPath(of: samples[1]))
        #expect(writer.routePath(of: samples[0]).hasPrefix("workout-routes/route_"))
        #expect(writer.routePath(of: samples[0]) == writer.routePath(of: samples[0]))
        await server.stop()
    }

    /// The metadata a sample kept, without the sync identifier the importer gives each record.
    static func kept(_ metadata: [String: MetadataValue]) -> [String: MetadataValue] {
        metadata.filter { $0.key != MetadataKey.syncIdentifier && $0.key != MetadataKey.syncVersion }
    }

    /// Compares what the import gave with what was saved, field by field. The creation date is
    /// the one field that differs: the store sets it when it saves, an import included.
    static func expectSame(_ imported: Sample, _ original: Sample, _ where: String) {
        #expect(imported.type == original.type, "\(`where`)")
        #expect(imported.startDate == original.startDate && imported.endDate == original.endDate, "\(`where`)")
        #expect(imported.sourceRevision.name == original.sourceRevision.name, "\(`where`): source name")
        #expect(imported.sourceRevision.appID == "applehealth.round-trip", "\(`where`): \(imported.sourceRevision.appID)")
        #expect(imported.device == original.device, "\(`where`): device")
        #expect(kept(imported.metadata) == kept(original.metadata), "\(`where`): metadata")
        switch (imported.value, original.value) {
        case (.quantity(let a), .quantity(let b)):
            #expect(a.value == b.value && a.unit == b.unit, "\(`where`): \(a) vs \(b)")
        case (.category(let a), .category(let b)):
            #expect(a == b, "\(`where`)")
        case (.correlation(let a), .correlation(let b)):
            #expect(a.objects.count == b.objects.count, "\(`where`): members")
            let sort: (Sample, Sample) -> Bool = { $0.type.rawValue < $1.type.rawValue }
            for (index, (x, y)) in zip(a.objects.sorted(by: sort), b.objects.sorted(by: sort)).enumerated() {
                expectSame(x, y, "\(`where`).objects[\(index)]")
            }
        case (.workout(let a), .workout(let b)):
            #expect(a.activityType == b.activityType, "\(`where`)")
            #expect(a.events == b.events, "\(`where`): events \(a.events) vs \(b.events)")
            #expect(a.activities.map(\.uuid) == b.activities.map(\.uuid), "\(`where`): activity ids")
            #expect(a.activities.map(\.startDate) == b.activities.map(\.startDate) && a.activities.map(\.endDate) == b.activities.map(\.endDate))
            #expect(a.activities.map(\.activityType) == b.activities.map(\.activityType))
            #expect(a.statistics == b.statistics, "\(`where`): statistics \(a.statistics) vs \(b.statistics)")
        case (.audiogram(let a), .audiogram(let b)):
            #expect(a == b, "\(`where`): \(a) vs \(b)")
        case (.visionPrescription(let a), .visionPrescription(let b)):
            #expect(a == b, "\(`where`): \(a) vs \(b)")
        default:
            Issue.record("\(`where`): \(imported.value) vs \(original.value)")
        }
    }

    @Test("samples exported to Apple's format import into a fresh store as the same samples, once")
    func roundTrip() async throws {
        let first = try await ServerHarness.start(openAuthorization: true)
        let app = try await first.healthStore("org.example.round-trip", name: "Round Trip", version: "2.1")
        for result in try await app.save(try Self.history()) { #expect(result.uuid != nil) }
        let owner = HealthStore(client: try await first.owner())
        let saved = try await Self.everything(owner)
        #expect(saved.values.map(\.count).reduce(0, +) == 12)

        let path = first.directory.appendingPathComponent("export.xml").path
        try Self.export(saved, server: first, to: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("<!DOCTYPE"))
        #expect(text.contains("value=\"HKCategoryValueSleepAnalysisAsleepCore\""))
        #expect(text.contains("HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\""))
        #expect(text.contains("-0500\""), "New York's offset in November")

        let second = try await ServerHarness.start(openAuthorization: true)
        let secondOwner = try await second.owner()
        let report = try await ImportServiceTests.importExport(secondOwner, data, chunk: 1000, characteristics: true)
        // Twelve samples, the correlation's two members written twice (inside it and at top level).
        #expect(report.saved == 12 && report.skipped == 0, "\(report)")
        #expect(report.keptExisting == 2, "\(report)")
        #expect(report.goalsSet == 1)
        #expect(Set(report.characteristicsSet) == [
            "HKCharacteristicTypeIdentifierBiologicalSex", "HKCharacteristicTypeIdentifierDateOfBirth",
            "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
        ])
        let imported = try await Self.everything(HealthStore(client: secondOwner))
        for type in Self.types {
            let (a, b) = (imported[type] ?? [], saved[type] ?? [])
            #expect(a.count == b.count, "\(type): \(a.count) imported, \(b.count) saved")
            for (index, (x, y)) in zip(a, b).enumerated() { Self.expectSame(x, y, "\(type)[\(index)]") }
        }

        let again = try await ImportServiceTests.importExport(secondOwner, data)
        // Every sample is already there, counted as the first run counted it: the correlation as
        // itself and its two members, and the members the export lists at top level too.
        #expect(again.saved == 0 && again.keptExisting == report.saved + report.keptExisting && again.skipped == 0, "\(again)")
        #expect(try await Self.everything(HealthStore(client: secondOwner)).values.map(\.count).reduce(0, +) == 12)
        await second.stop()
        await first.stop()
    }
}
