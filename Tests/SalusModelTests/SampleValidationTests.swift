import Foundation
import Testing

@testable import SalusModel

/// A valid step-count sample for tests to break.
func makeStepSample(
    start: Date = Date(timeIntervalSince1970: 1_700_000_000),
    duration: TimeInterval = 60,
    metadata: [String: MetadataValue] = [:]
) -> Sample {
    Sample(
        type: "HKQuantityTypeIdentifierStepCount",
        startDate: start,
        endDate: start.addingTimeInterval(duration),
        value: .quantity(Quantity(value: 120, unit: .count)),
        sourceRevision: SourceRevision(appID: "org.example.steps", name: "Steps"),
        metadata: metadata)
}

@Suite("Sample validation")
struct SampleValidationTests {
    /// Steps, as a plugin declares them: the model's rules are checked by the catalog's one check.
    static let catalog = TypeCatalog(types: [
        TypeRules(identifier: "HKQuantityTypeIdentifierStepCount", kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
    ])

    static func check(_ sample: Sample) throws(ValidationError) {
        if let first = catalog.validationErrors(of: sample).first { throw first }
    }

    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("A well-formed sample passes")
    func valid() throws {
        let sample = makeStepSample(metadata: [
            MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(2),
            MetadataKey.timeZone: .string("Europe/Vilnius"),
        ])
        #expect(sample.validationErrors().isEmpty)
        try Self.check(sample)
        let instant = makeStepSample(duration: 0)
        try Self.check(instant)
    }

    @Test("An end before the start names the field, the value and the start")
    func endBeforeStart() throws {
        let samples = [makeStepSample(), makeStepSample(), makeStepSample(), makeStepSample(duration: -1)]
        let error = try #require(throws: ValidationError.self) { try Self.catalog.check(samples) }
        #expect(error.reason == .invalidDateRange)
        #expect(error.field == "samples[3].endDate")
        #expect(error.value == "2023-11-14T22:13:19.000Z")
        #expect(error.expected == "a date at or after startDate 2023-11-14T22:13:20.000Z")
        #expect(
            error.description
                == "samples[3].endDate: got 2023-11-14T22:13:19.000Z; expected a date at or after startDate "
                + "2023-11-14T22:13:20.000Z (invalidDateRange)")
    }

    @Test("Quantity values must be finite", arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteQuantity(value: Double) throws {
        var sample = makeStepSample()
        sample.value = .quantity(Quantity(value: value, unit: .count))
        let error = try #require(throws: ValidationError.self) { try Self.check(sample) }
        #expect(error.reason == .nonFiniteValue)
        #expect(error.field == "sample.quantity.value")
    }

    @Test("Metadata keys must be non-empty and numbers finite")
    func metadataRules() {
        let sample = makeStepSample(metadata: [
            "": .string("x"), "org.example.score": .number(.nan),
            MetadataKey.lapLength: .quantity(Quantity(value: .infinity, unit: .meter)),
        ])
        let errors = sample.validationErrors()
        #expect(errors.map(\.reason) == [.emptyMetadataKey, .nonFiniteValue, .nonFiniteValue])
        #expect(errors.map(\.field) == [
            "sample.metadata.", "sample.metadata.HKLapLength", "sample.metadata.org.example.score",
        ])
    }

    @Test("Sync identifier and version come together, with the right types")
    func syncKeys() {
        let noVersion = makeStepSample(metadata: [MetadataKey.syncIdentifier: .string("a")])
        #expect(noVersion.validationErrors().map(\.reason) == [.missingSyncVersion])
        #expect(noVersion.validationErrors().first?.field == "sample.metadata.HKMetadataKeySyncVersion")
        let noIdentifier = makeStepSample(metadata: [MetadataKey.syncVersion: .number(1)])
        #expect(noIdentifier.validationErrors().map(\.reason) == [.missingSyncIdentifier])
        let wrongTypes = makeStepSample(metadata: [
            MetadataKey.syncIdentifier: .number(1), MetadataKey.syncVersion: .string("1"),
        ])
        #expect(wrongTypes.validationErrors().map(\.reason) == [.invalidMetadataValue, .invalidMetadataValue])
    }

    @Test("Workout events and activities are checked, overlapping activities refused")
    func workoutRules() throws {
        var sample = makeStepSample(duration: 3600)
        sample.type = "HKWorkoutTypeIdentifier"
        let running = WorkoutActivity(activityType: 37, startDate: start, endDate: start.addingTimeInterval(1800))
        let overlapping = WorkoutActivity(
            activityType: 37, startDate: start.addingTimeInterval(1000), endDate: start.addingTimeInterval(2000))
        let backwards = WorkoutEvent(type: 3, startDate: start.addingTimeInterval(10), endDate: start)
        sample.value = .workout(Workout(activityType: 37, events: [backwards], activities: [running, overlapping]))
        let errors = sample.validationErrors()
        #expect(errors.map(\.reason) == [.invalidDateRange, .overlappingActivities])
        #expect(errors.map(\.field) == ["sample.workout.events[0].endDate", "sample.workout.activities[1].startDate"])

        let adjacent = WorkoutActivity(
            activityType: 37, startDate: start.addingTimeInterval(1800), endDate: start.addingTimeInterval(3600))
        sample.value = .workout(Workout(activityType: 37, activities: [adjacent, running]))
        #expect(sample.validationErrors().isEmpty)
    }

    @Test("A prescription may not expire before it is issued")
    func prescriptionRules() {
        var sample = makeStepSample(duration: 0)
        sample.type = "HKVisionPrescriptionTypeIdentifier"
        sample.value = .visionPrescription(
            VisionPrescription(
                prescriptionType: .glasses, dateIssued: start, expirationDate: start.addingTimeInterval(-86400),
                rightEye: LensSpecification(sphere: -1.25, cylinder: .nan)))
        let errors = sample.validationErrors()
        #expect(errors.map(\.field) == [
            "sample.visionPrescription.expirationDate", "sample.visionPrescription.rightEye.cylinder",
        ])
    }

    @Test("An empty type identifier is refused")
    func emptyType() {
        var sample = makeStepSample()
        sample.type = ""
        #expect(sample.validationErrors().map(\.reason) == [.emptyTypeIdentifier])
    }
}
