import Foundation
import Logging
import SalusModel
import SalusStore
import Testing

/// Types, stores and samples the store tests share.
enum Fixtures {
    static let steps: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
    static let heartRate: TypeIdentifier = "HKQuantityTypeIdentifierHeartRate"
    static let bodyTemperature: TypeIdentifier = "HKQuantityTypeIdentifierBodyTemperature"
    static let distance: TypeIdentifier = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    static let energy: TypeIdentifier = "HKQuantityTypeIdentifierActiveEnergyBurned"
    static let steadiness: TypeIdentifier = "HKQuantityTypeIdentifierAppleWalkingSteadiness"
    static let sleep: TypeIdentifier = "HKCategoryTypeIdentifierSleepAnalysis"
    static let menstrualFlow: TypeIdentifier = "HKCategoryTypeIdentifierMenstrualFlow"
    static let workout: TypeIdentifier = "HKWorkoutTypeIdentifier"
    static let prescription: TypeIdentifier = "HKVisionPrescriptionTypeIdentifier"
    static let document: TypeIdentifier = "HKDocumentTypeIdentifierCDA"
    static let allergyRecord: TypeIdentifier = "HKClinicalTypeIdentifierAllergyRecord"
    static let wheelchairUse: TypeIdentifier = "HKCharacteristicTypeIdentifierWheelchairUse"
    static let electrocardiogram: TypeIdentifier = "HKDataTypeIdentifierElectrocardiogram"
    static let audiogram: TypeIdentifier = "HKDataTypeIdentifierAudiogram"
    static let heartbeatSeries: TypeIdentifier = "HKDataTypeIdentifierHeartbeatSeries"
    static let stateOfMind: TypeIdentifier = "HKDataTypeStateOfMind"
    static let medicationDoseEvent: TypeIdentifier = "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent"
    static let gad7: TypeIdentifier = "HKScoredAssessmentTypeIdentifierGAD7"
    static let phq9: TypeIdentifier = "HKScoredAssessmentTypeIdentifierPHQ9"
    static let bloodPressure: TypeIdentifier = "HKCorrelationTypeIdentifierBloodPressure"
    static let food: TypeIdentifier = "HKCorrelationTypeIdentifierFood"
    static let systolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let dietaryEnergy: TypeIdentifier = "HKQuantityTypeIdentifierDietaryEnergyConsumed"
    /// Grams: protein, carbohydrates, total fat, sugar.
    static let nutrients: [TypeIdentifier] = [
        "HKQuantityTypeIdentifierDietaryProtein", "HKQuantityTypeIdentifierDietaryCarbohydrates",
        "HKQuantityTypeIdentifierDietaryFatTotal", "HKQuantityTypeIdentifierDietarySugar",
    ]

    static let quietLogger: Logger = {
        var logger = Logger(label: "salus.store.tests")
        logger.logLevel = .warning
        return logger
    }()

    static let allAsleep: Set<Int> = [1, 3, 4, 5]

    static let catalog = TypeCatalog(types: [
        TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
        TypeRules(
            identifier: heartRate.rawValue, kind: .quantity, canonicalUnit: try! SalusUnit(parsing: "count/min"),
            aggregationStyle: .discreteTemporallyWeighted, bounds: TypeRules.Bounds(min: 0, max: 400)),
        TypeRules(
            identifier: bodyTemperature.rawValue, kind: .quantity, canonicalUnit: try! SalusUnit(parsing: "degC"),
            aggregationStyle: .discreteArithmetic,
            optionalMetadataKeys: [.init(key: "HKBodyTemperatureSensorLocation", valueType: .number)]),
        TypeRules(identifier: distance.rawValue, kind: .quantity, canonicalUnit: .meter, aggregationStyle: .cumulative),
        TypeRules(
            identifier: energy.rawValue, kind: .quantity, canonicalUnit: try! SalusUnit(parsing: "kcal"),
            aggregationStyle: .cumulative),
        TypeRules(
            identifier: steadiness.rawValue, kind: .quantity, canonicalUnit: .percent, aggregationStyle: .discreteArithmetic,
            readOnlyForApps: true),
        TypeRules(
            identifier: sleep.rawValue, kind: .category, cases: (0...5).map { TypeRules.Case(name: "value\($0)", rawValue: Int64($0)) },
            valueGroups: [TypeRules.ValueGroup(name: "allAsleep", rawValues: allAsleep.sorted().map { Int64($0) })],
            optionalMetadataKeys: [.init(key: MetadataKey.timeZone, valueType: .string)]),
        TypeRules(
            identifier: menstrualFlow.rawValue, kind: .category,
            cases: (1...5).map { TypeRules.Case(name: "value\($0)", rawValue: Int64($0)) },
            requiredMetadataKeys: [.init(key: MetadataKey.menstrualCycleStart, valueType: .bool)]),
        TypeRules(identifier: workout.rawValue, kind: .workout),
        TypeRules(identifier: prescription.rawValue, kind: .visionPrescription),
        TypeRules(identifier: document.rawValue, kind: .document),
        TypeRules(identifier: wheelchairUse.rawValue, kind: .characteristic, readOnlyForApps: true),
        TypeRules(identifier: electrocardiogram.rawValue, kind: .electrocardiogram),
        TypeRules(identifier: audiogram.rawValue, kind: .audiogram),
        TypeRules(identifier: heartbeatSeries.rawValue, kind: .heartbeatSeries),
        TypeRules(identifier: stateOfMind.rawValue, kind: .stateOfMind),
        TypeRules(identifier: medicationDoseEvent.rawValue, kind: .medicationDoseEvent),
        TypeRules(identifier: allergyRecord.rawValue, kind: .clinicalRecord),
        TypeRules(identifier: gad7.rawValue, kind: .scoredAssessment),
        TypeRules(identifier: phq9.rawValue, kind: .scoredAssessment),
        TypeRules(identifier: bloodPressure.rawValue, kind: .correlation),
        TypeRules(identifier: food.rawValue, kind: .correlation),
        TypeRules(
            identifier: systolic.rawValue, kind: .quantity, canonicalUnit: .millimeterOfMercury,
            aggregationStyle: .discreteArithmetic),
        TypeRules(
            identifier: diastolic.rawValue, kind: .quantity, canonicalUnit: .millimeterOfMercury,
            aggregationStyle: .discreteArithmetic),
        TypeRules(identifier: dietaryEnergy.rawValue, kind: .quantity, canonicalUnit: .kilocalorie, aggregationStyle: .cumulative),
    ] + nutrients.map {
        TypeRules(identifier: $0.rawValue, kind: .quantity, canonicalUnit: .gram, aggregationStyle: .cumulative)
    })

    static let app = SourceRevision(
        appID: "org.example.diary", name: "Diary", version: "1.0", productType: "x86_64", osVersion: "6.1.0")
    static let otherApp = SourceRevision(appID: "org.example.other", name: "Other", version: "2.0")

    /// A whole second, so dates survive the store's microseconds exactly.
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    static func at(_ seconds: Double) -> Date { base.addingTimeInterval(seconds) }

    /// A step count sample.
    static func quantity(
        _ value: Double, start: Double = 0, end: Double? = nil, metadata: [String: MetadataValue] = [:],
        device: Device? = nil
    ) -> Sample {
        quantity(steps, value, "count", start: start, end: end, metadata: metadata, device: device)
    }

    static func quantity(
        _ type: TypeIdentifier, _ value: Double, _ unit: String = "count", start: Double = 0,
        end: Double? = nil, metadata: [String: MetadataValue] = [:], device: Device? = nil
    ) -> Sample {
        Sample(
            type: type, startDate: at(start), endDate: at(end ?? start),
            value: .quantity(Quantity(value: value, unit: try! SalusUnit(parsing: unit))),
            sourceRevision: SourceRevision(appID: "ignored", name: "ignored"), device: device, metadata: metadata)
    }

    /// A sleep analysis sample.
    static func category(
        _ value: Int, start: Double = 0, end: Double? = nil, metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        category(sleep, value, start: start, end: end, metadata: metadata)
    }

    static func category(
        _ type: TypeIdentifier, _ value: Int, start: Double = 0, end: Double? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: type, startDate: at(start), endDate: at(end ?? start), value: .category(value),
            sourceRevision: SourceRevision(appID: "ignored", name: "ignored"), metadata: metadata)
    }

    /// A blood pressure correlation at `start` of a systolic and a diastolic reading in mmHg.
    static func bloodPressure(
        _ systolicValue: Double, _ diastolicValue: Double, start: Double = 0, metadata: [String: MetadataValue] = [:],
        memberMetadata: [String: MetadataValue] = [:]
    ) -> Sample {
        correlation(bloodPressure, start: start, metadata: metadata, [
            quantity(systolic, systolicValue, "mmHg", start: start, metadata: memberMetadata),
            quantity(diastolic, diastolicValue, "mmHg", start: start),
        ])
    }

    /// A food correlation at `start`: energy in kcal, then protein, carbohydrates, fat and sugar in
    /// grams.
    static func food(_ kilocalories: Double, grams: [Double] = [1, 2, 3, 4], start: Double = 0) -> Sample {
        correlation(
            food, start: start,
            [quantity(dietaryEnergy, kilocalories, "kcal", start: start)]
                + zip(nutrients, grams).map { quantity($0, $1, "g", start: start) })
    }

    static func correlation(
        _ type: TypeIdentifier, start: Double = 0, metadata: [String: MetadataValue] = [:], _ objects: [Sample]
    ) -> Sample {
        Sample(
            type: type, startDate: at(start), endDate: at(start), value: .correlation(Correlation(objects: objects)),
            sourceRevision: SourceRevision(appID: "ignored", name: "ignored"), metadata: metadata)
    }

    static func synced(_ identifier: String, version: Double, value: Double = 1) -> Sample {
        quantity(
            steps, value,
            metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .number(version)])
    }
}

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: URL
    let store: SampleStore

    var path: String { store.path }

    private init(directory: URL, store: SampleStore) {
        self.directory = directory
        self.store = store
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salus-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func make(configuration: SampleStore.Configuration = .init()) async throws -> TemporaryStore {
        let directory = try temporaryDirectory()
        let store = try await SampleStore.open(
            path: directory.appendingPathComponent("salus.sqlite").path, catalog: Fixtures.catalog,
            configuration: configuration, logger: Fixtures.quietLogger)
        return TemporaryStore(directory: directory, store: store)
    }

    deinit {
        let (store, directory) = (self.store, self.directory)
        Task {
            await store.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

extension SampleStore {
    /// Every sample of `type` matching `predicate`, sorted by start.
    func all(_ type: TypeIdentifier, _ predicate: SamplePredicate? = nil) async throws -> [Sample] {
        try await samples(SampleQuery(type: type, predicate: predicate)).collect()
    }

    /// How many samples of `type` there are.
    func count(_ type: TypeIdentifier, _ predicate: SamplePredicate? = nil) async throws -> Int {
        try await all(type, predicate).count
    }
}
