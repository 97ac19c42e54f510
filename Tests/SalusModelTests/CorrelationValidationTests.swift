import Foundation
import Testing

@testable import SalusModel

/// Correlations through the one sample check: the members are checked as samples of their own
/// types under `correlation.objects[i]`, and each correlation type holds what it holds.
@Suite("Correlation validation")
struct CorrelationValidationTests {
    static let systolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let energy: TypeIdentifier = "HKQuantityTypeIdentifierDietaryEnergyConsumed"
    static let protein: TypeIdentifier = "HKQuantityTypeIdentifierDietaryProtein"
    static let carbohydrates: TypeIdentifier = "HKQuantityTypeIdentifierDietaryCarbohydrates"
    static let fat: TypeIdentifier = "HKQuantityTypeIdentifierDietaryFatTotal"
    static let sugar: TypeIdentifier = "HKQuantityTypeIdentifierDietarySugar"
    static let steps: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
    static let sleep: TypeIdentifier = "HKCategoryTypeIdentifierSleepAnalysis"
    static let workout: TypeIdentifier = "HKWorkoutTypeIdentifier"
    static let custom: TypeIdentifier = "org.example.migraine.episode"

    /// Refuses dietary sugar above 150 g in one sample, as a plugin's own validator would.
    struct SugarValidator: SampleValidating {
        func validationErrors(of sample: Sample, at path: String) -> [ValidationError] {
            guard sample.type == CorrelationValidationTests.sugar, case .quantity(let quantity) = sample.value,
                quantity.value > 150
            else { return [] }
            return [ValidationError(
                reason: .refusedByPlugin, field: "\(path).quantity.value", value: "\(quantity.value) g",
                expected: "at most 150 g of sugar in one sample")]
        }
    }

    static let catalog: TypeCatalog = {
        let mmHg = SalusUnit.millimeterOfMercury
        let bounds = TypeRules.Bounds(min: 0, minInclusive: false, max: 400)
        var types = [
            TypeRules(identifier: Correlation.bloodPressure.rawValue, kind: .correlation),
            TypeRules(identifier: Correlation.food.rawValue, kind: .correlation),
            TypeRules(identifier: custom.rawValue, kind: .correlation),
            TypeRules(identifier: systolic.rawValue, kind: .quantity, canonicalUnit: mmHg, aggregationStyle: .discreteArithmetic, bounds: bounds),
            TypeRules(identifier: diastolic.rawValue, kind: .quantity, canonicalUnit: mmHg, aggregationStyle: .discreteArithmetic, bounds: bounds),
            TypeRules(identifier: energy.rawValue, kind: .quantity, canonicalUnit: .kilocalorie, aggregationStyle: .cumulative),
            TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
            TypeRules(identifier: sleep.rawValue, kind: .category, cases: (0...5).map { TypeRules.Case(name: "value\($0)", rawValue: Int64($0)) }),
            TypeRules(identifier: workout.rawValue, kind: .workout),
        ]
        for nutrient in [protein, carbohydrates, fat, sugar] {
            types.append(TypeRules(
                identifier: nutrient.rawValue, kind: .quantity, canonicalUnit: .gram, aggregationStyle: .cumulative,
                pluginID: "org.example.nutrition"))
        }
        return TypeCatalog(types: types, validators: ["org.example.nutrition": SugarValidator()])
    }()

    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let source = SourceRevision(appID: "org.example.cuff", name: "Cuff")

    static func quantity(_ type: TypeIdentifier, _ value: Double, _ unit: SalusUnit, start: Date = start, end: Date? = nil) -> Sample {
        Sample(type: type, startDate: start, endDate: end ?? start, value: .quantity(Quantity(value: value, unit: unit)), sourceRevision: source)
    }

    static func correlation(_ type: TypeIdentifier, _ objects: [Sample], end: Date? = nil) -> Sample {
        Sample(
            type: type, startDate: start, endDate: end ?? start, value: .correlation(Correlation(objects: objects)),
            sourceRevision: source)
    }

    static func bloodPressure(_ systolicValue: Double = 120, _ diastolicValue: Double = 80) -> Sample {
        correlation(Correlation.bloodPressure, [
            quantity(systolic, systolicValue, .millimeterOfMercury), quantity(diastolic, diastolicValue, .millimeterOfMercury),
        ])
    }

    static let banana: Sample = correlation(Correlation.food, [
        quantity(energy, 105, .kilocalorie), quantity(protein, 1.3, .gram), quantity(carbohydrates, 27, .gram),
        quantity(fat, 0.4, .gram), quantity(sugar, 14, .gram),
    ])

    /// The first error `check` throws for `sample` saved alone.
    static func refusal(_ sample: Sample) throws -> ValidationError {
        try #require(throws: ValidationError.self) { try catalog.check([sample]) }
    }

    @Test("A blood pressure reading and a food with five nutrients pass")
    func valid() throws {
        try Self.catalog.check([Self.bloodPressure(), Self.banana])
        // Any pressure unit converts to mmHg.
        try Self.catalog.check([Self.correlation(Correlation.bloodPressure, [
            Self.quantity(Self.diastolic, 10.7, try SalusUnit(parsing: "kPa")), Self.quantity(Self.systolic, 16, try SalusUnit(parsing: "kPa")),
        ])])
        #expect(Self.banana.value.kind == .correlation)
        #expect(Self.banana.correlationObjects(of: Self.protein).count == 1)
    }

    @Test("Members may lie outside the correlation's own dates, as HealthKit documents no such rule")
    func memberDates() throws {
        let lunch = Self.correlation(Correlation.food, [
            Self.quantity(Self.energy, 650, .kilocalorie, start: Self.start.addingTimeInterval(-600), end: Self.start.addingTimeInterval(1_800)),
        ])
        try Self.catalog.check([lunch])
    }

    @Test("A correlation needs members")
    func empty() throws {
        let error = try Self.refusal(Self.correlation(Correlation.food, []))
        #expect(error.reason == .missingValue)
        #expect(error.field == "samples[0].correlation.objects")
        #expect(error.value == "no samples")
        #expect(error.expected == "at least one quantity or category sample")
    }

    @Test("Members are quantity or category samples")
    func memberKinds() throws {
        let run = Sample(
            type: Self.workout, startDate: Self.start, endDate: Self.start.addingTimeInterval(600),
            value: .workout(Workout(activityType: 37)), sourceRevision: Self.source)
        let error = try Self.refusal(Self.correlation(Self.custom, [Self.quantity(Self.steps, 10, .count), run]))
        #expect(error.reason == .wrongKind)
        #expect(error.field == "samples[0].correlation.objects[1].value")
        #expect(error.value == "a workout value")
        let nested = try Self.refusal(Self.correlation(Self.custom, [Self.bloodPressure()]))
        #expect(nested.field == "samples[0].correlation.objects[0].value")
        #expect(nested.value == "a correlation value")
    }

    @Test("Each member is checked as a sample of its own type, named under correlation.objects[i]")
    func membersAsSamples() throws {
        let wrongUnit = Self.correlation(Correlation.bloodPressure, [
            Self.quantity(Self.systolic, 120, .millimeterOfMercury), Self.quantity(Self.diastolic, 80, .count),
        ])
        let unit = try Self.refusal(wrongUnit)
        #expect(unit.reason == .invalidUnit)
        #expect(unit.field == "samples[0].correlation.objects[1].quantity.unit")
        #expect(unit.value == "count")
        #expect(unit.expected.contains("not one of dimensionless"), "\(unit.expected)")

        let outOfRange = try Self.refusal(Self.bloodPressure(120, 0))
        #expect(outOfRange.reason == .valueOutOfRange)
        #expect(outOfRange.field == "samples[0].correlation.objects[1].quantity.value")
        #expect(outOfRange.value == "0 mmHg")
        #expect(outOfRange.description.hasPrefix("samples[0].correlation.objects[1].quantity.value: got 0 mmHg; expected a value in (0, 400] mmHg"))

        var backwards = Self.quantity(Self.protein, 2, .gram)
        backwards.endDate = Self.start.addingTimeInterval(-1)
        let dates = try Self.refusal(Self.correlation(Correlation.food, [Self.quantity(Self.energy, 90, .kilocalorie), backwards]))
        #expect(dates.reason == .invalidDateRange)
        #expect(dates.field == "samples[0].correlation.objects[1].endDate")

        let unknown = try Self.refusal(Self.correlation(Self.custom, [Self.quantity("org.example.nothing", 1, .count)]))
        #expect(unknown.reason == .unknownType)
        #expect(unknown.field == "samples[0].correlation.objects[0].type")
        #expect(unknown.value == "\"org.example.nothing\"")

        var synced = Self.quantity(Self.energy, 90, .kilocalorie)
        synced.metadata = [MetadataKey.syncIdentifier: .string("meal-1")]
        let metadata = try Self.refusal(Self.correlation(Correlation.food, [synced]))
        #expect(metadata.reason == .missingSyncVersion)
        #expect(metadata.field == "samples[0].correlation.objects[0].metadata.HKMetadataKeySyncVersion")
    }

    @Test("A member's plugin validator sees the member, under its own path")
    func memberValidator() throws {
        let candy = Self.correlation(Correlation.food, [Self.quantity(Self.energy, 900, .kilocalorie), Self.quantity(Self.sugar, 0.2, .kilogram)])
        let error = try Self.refusal(candy)
        #expect(error.reason == .refusedByPlugin)
        #expect(error.field == "samples[0].correlation.objects[1].quantity.value")
        // The validator got the member in its type's canonical unit.
        #expect(error.value == "200.0 g")
    }

    @Test("Blood pressure holds exactly one systolic and one diastolic sample")
    func bloodPressureComposition() throws {
        let missing = try Self.refusal(Self.correlation(Correlation.bloodPressure, [Self.quantity(Self.systolic, 120, .millimeterOfMercury)]))
        #expect(missing.reason == .invalidCorrelationMember)
        #expect(missing.field == "samples[0].correlation.objects")
        #expect(missing.value == "no HKQuantityTypeIdentifierBloodPressureDiastolic sample")
        #expect(missing.expected.hasPrefix("exactly one sample of each of HKQuantityTypeIdentifierBloodPressureSystolic and HKQuantityTypeIdentifierBloodPressureDiastolic"))

        let twice = try Self.refusal(Self.correlation(Correlation.bloodPressure, [
            Self.quantity(Self.systolic, 120, .millimeterOfMercury), Self.quantity(Self.diastolic, 80, .millimeterOfMercury),
            Self.quantity(Self.systolic, 121, .millimeterOfMercury),
        ]))
        #expect(twice.field == "samples[0].correlation.objects[2].type")
        #expect(twice.value == "\"HKQuantityTypeIdentifierBloodPressureSystolic\"")
        #expect(twice.expected == "one HKQuantityTypeIdentifierBloodPressureSystolic sample only: objects[0] is one already")

        var withSteps = Self.bloodPressure()
        withSteps.value = .correlation(Correlation(objects: withSteps.correlationObjects + [Self.quantity(Self.steps, 10, .count)]))
        let stranger = try Self.refusal(withSteps)
        #expect(stranger.field == "samples[0].correlation.objects[2].type")
        #expect(stranger.value == "\"HKQuantityTypeIdentifierStepCount\"")
    }

    @Test("Food holds dietary quantity samples only; other correlation types any quantity or category samples")
    func otherCompositions() throws {
        let steps = try Self.refusal(Self.correlation(Correlation.food, [Self.quantity(Self.energy, 90, .kilocalorie), Self.quantity(Self.steps, 10, .count)]))
        #expect(steps.reason == .invalidCorrelationMember)
        #expect(steps.field == "samples[0].correlation.objects[1].type")
        #expect(steps.expected == "a quantity type whose identifier starts with HKQuantityTypeIdentifierDietary: HKCorrelationTypeIdentifierFood holds only those")

        let sleep = Sample(type: Self.sleep, startDate: Self.start, endDate: Self.start.addingTimeInterval(60), value: .category(2), sourceRevision: Self.source)
        try Self.catalog.check([Self.correlation(Self.custom, [Self.quantity(Self.steps, 10, .count), sleep])])
    }

    @Test("A correlation value on a quantity type, and a quantity on a correlation type, are the wrong kind")
    func wrongKind() throws {
        let onSteps = try Self.refusal(Self.correlation(Self.steps, [Self.quantity(Self.steps, 1, .count)]))
        #expect(onSteps.reason == .wrongKind)
        #expect(onSteps.field == "samples[0].value")
        let quantity = try Self.refusal(Self.quantity(Correlation.bloodPressure, 120, .millimeterOfMercury))
        #expect(quantity.reason == .wrongKind)
        #expect(quantity.expected == "a correlation value for HKCorrelationTypeIdentifierBloodPressure")
    }
}

extension Sample {
    /// The members, for building test cases.
    var correlationObjects: [Sample] {
        guard case .correlation(let correlation) = value else { return [] }
        return correlation.objects
    }

    func correlationObjects(of type: TypeIdentifier) -> [Sample] {
        guard case .correlation(let correlation) = value else { return [] }
        return correlation.objects(of: type)
    }
}
