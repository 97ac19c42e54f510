import CSalusPlugin
import Foundation
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf
import Testing

@testable import SalusPluginHost

/// Samples through the registry: the declared rules (kind, unit, bounds, values, metadata) and
/// the plugins' validators, the C example's included.
@Suite("Validators")
struct ValidatorTests {
    static func registry() throws -> TypeRegistry { try OneProcessTests.registry() }

    static func category(_ type: String, _ value: Int64, seconds: Int64 = 60, metadata: [String: Salus_V1_MetadataValue] = [:]) -> Salus_V1_Sample {
        OneProcessTests.sample(type, seconds: seconds) {
            $0.category = Salus_V1_CategoryValue.with { $0.value = value }
            $0.metadata = metadata
        }
    }

    static func quantity(_ type: String, _ value: Double, _ unit: String, seconds: Int64 = 60) -> Salus_V1_Sample {
        OneProcessTests.sample(type, seconds: seconds) {
            $0.quantity = Salus_V1_Quantity.with { $0.value = value; $0.unit = unit }
        }
    }

    static func bool(_ value: Bool) -> Salus_V1_MetadataValue { .with { $0.boolValue = value } }

    @Test func cExampleRoundTrip() throws {
        let registry = try Self.registry()
        let attack = "org.example.migraine.attack"
        #expect(registry.catalog.hasValidator(for: attack))
        let fine: [UInt8] = try Self.category(attack, 3, seconds: 6 * 3600, metadata: ["org.example.migraine.aura": Self.bool(true)]).serializedBytes()
        #expect(registry.pluginRefusal(encodedSample: fine) == nil)
        // The C example answers in parts (ABI 1.1 validate_fields), which the host prefers.
        let instant: [UInt8] = try Self.category(attack, 3, seconds: 0).serializedBytes()
        let refusal = try #require(registry.pluginRefusal(encodedSample: instant))
        #expect(refusal.field == "endDate")
        #expect(refusal.value == "an attack lasting 0 us")
        #expect(refusal.expected == "endDate after startDate")
        #expect(refusal.message == nil)
        let tooLong: [UInt8] = try Self.category(attack, 2, seconds: 8 * 86_400).serializedBytes()
        let long = try #require(registry.pluginRefusal(encodedSample: tooLong))
        #expect(long.field == "endDate")
        #expect(long.value == "an attack lasting 691200 s")
        #expect(long.expected == "at most 604800 s (7 days) per attack sample")
        // Through the one check: host rules first, then the C validator.
        #expect(registry.check(Self.category(attack, 4, seconds: 3600)) == nil)
        #expect(registry.check(Self.category(attack, 9, seconds: 3600))?.contains("expected one of org.example.migraine.attack's values: mild 1") == true)
        #expect(registry.check(Self.category(attack, 1, seconds: 3600, metadata: ["org.example.migraine.aura": .with { $0.stringValue = "yes" }]))?.contains("expected a bool value") == true)
        let error = try #require(registry.checkError(Self.category(attack, 3, seconds: 0)))
        #expect(error.field == "sample.endDate" && error.reason == .refusedByPlugin)
        #expect(error.value == "an attack lasting 0 us" && error.expected == "endDate after startDate")
        #expect(registry.pluginRefusal(encodedSample: [0xff, 0xff]) != nil)
    }

    /// A 1.0 plugin's table ends before `validate_fields`: the host calls `validate` and reads its
    /// free text ("field: what is wrong; expected what") into field, value and expected. The C
    /// example keeps its 1.0 `validate`; its table, cut to the 1.0 size, is such a plugin.
    @Test func cExampleAsABI10() throws {
        let registry = try Self.registry()
        let loaded = try #require(registry.catalog.validators["org.example.migraine"] as? SampleValidator)
        let table = UnsafeMutablePointer<salus_sample_validator>.allocate(capacity: 1)
        defer { table.deallocate() }
        table.initialize(to: loaded.table.pointee)
        table.pointee.struct_size = UInt32(MemoryLayout<salus_sample_validator>.offset(of: \salus_sample_validator.validate_fields)!)
        let legacy = SampleValidator(table: UnsafePointer(table), host: loaded.host, pluginID: loaded.pluginID)
        #expect(!legacy.answersInParts)

        let attack = "org.example.migraine.attack"
        let fine: [UInt8] = try Self.category(attack, 3, seconds: 6 * 3600).serializedBytes()
        #expect(legacy.validate(encodedSample: fine) == nil)
        let instant: [UInt8] = try Self.category(attack, 3, seconds: 0).serializedBytes()
        let refusal = try #require(legacy.validate(encodedSample: instant))
        #expect(refusal.field == "endDate")
        #expect(refusal.message?.hasPrefix("an attack lasting 0 us") == true)
        #expect(refusal.expected == "endDate after startDate")
        #expect(refusal.value.hasPrefix("an attack lasting 0 us (start "))
        let tooLong: [UInt8] = try Self.category(attack, 2, seconds: 8 * 86_400).serializedBytes()
        #expect(legacy.validate(encodedSample: tooLong)?.expected.contains("at most 604800 s") == true)
        let undecodable = try #require(legacy.validate(encodedSample: [0xff, 0xff]))
        #expect(undecodable.field == "sample" && undecodable.expected == "not a protobuf-encoded salus.v1.Sample")
    }

    @Test func sleepStagesUnderADay() throws {
        let registry = try Self.registry()
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierSleepAnalysis", 4, seconds: 23 * 3600)) == nil)
        let message = try #require(registry.check(Self.category("HKCategoryTypeIdentifierSleepAnalysis", 4, seconds: 24 * 3600)))
        #expect(message.contains("expected less than 24 h"))
        // The bundled plugins answer in parts (ABI 1.1).
        let error = try #require(registry.checkError(Self.category("HKCategoryTypeIdentifierSleepAnalysis", 4, seconds: 25 * 3600)))
        #expect(error.field == "sample.endDate")
        #expect(error.value == "a sample lasting 25.0 h")
        #expect(error.expected.hasPrefix("less than 24 h"))
        #expect(error.reason == .refusedByPlugin)
    }

    @Test func menstrualFlowNeedsCycleStart() throws {
        let registry = try Self.registry()
        let flow = "HKCategoryTypeIdentifierMenstrualFlow"
        let missing = try #require(registry.checkError(Self.category(flow, 3)))
        #expect(missing.field == "sample.metadata.HKMenstrualCycleStart" && missing.value == "nil")
        #expect(missing.reason == .missingMetadata)
        #expect(registry.check(Self.category(flow, 3, metadata: ["HKMenstrualCycleStart": Self.bool(true)])) == nil)
        // The plugin's own validator, without the host's declared checks.
        let bytes: [UInt8] = try Self.category(flow, 3).serializedBytes()
        let refusal = try #require(registry.pluginRefusal(encodedSample: bytes))
        #expect(refusal.field == "metadata.HKMenstrualCycleStart" && refusal.value == "nil")
        #expect(refusal.expected.contains("must say whether it starts a cycle"))
    }

    @Test func impossibleRefusedUnusualAccepted() throws {
        let registry = try Self.registry()
        let heartRate = "HKQuantityTypeIdentifierHeartRate"
        #expect(registry.check(Self.quantity(heartRate, 230, "count/min")) == nil, "unusual, possible")
        #expect(registry.check(Self.quantity(heartRate, 900, "count/min"))?.contains("expected a value in (0, 10) count/s, the possible range") == true)
        #expect(registry.check(Self.quantity(heartRate, -1, "count/min")) != nil)
        #expect(registry.check(Self.quantity(heartRate, 70, "kg"))?.contains("sample.quantity.unit: got kg; expected a unit of") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyTemperature", 104, "degF")) == nil, "40 °C: fever")
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyTemperature", 150, "degC")) != nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierStepCount", -5, "count")) != nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyMass", 300, "lb")) == nil)
        // Move time longer than its sample: the Wheelchair validator, in canonical minutes.
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierAppleMoveTime", 2, "hr", seconds: 3600))?.contains("sample.quantity.value: got 120.0 min; expected at most the sample's duration, 60.0 min") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierAppleMoveTime", 30, "min", seconds: 3600)) == nil)
    }

    @Test("The catalogue's new types: required metadata, percentages, molar units, symptom values")
    func catalogueTypes() throws {
        let registry = try Self.registry()
        func number(_ value: Double) -> Salus_V1_MetadataValue { .with { $0.numberValue = value } }

        // Insulin delivery must say basal (1) or bolus (2), as HealthKit requires.
        let insulin = "HKQuantityTypeIdentifierInsulinDelivery"
        let missing = try #require(registry.checkError(Self.quantity(insulin, 4, "IU")))
        #expect(missing.field == "sample.metadata.HKInsulinDeliveryReason" && missing.reason == .missingMetadata)
        var bolus = Self.quantity(insulin, 4, "IU")
        bolus.metadata["HKInsulinDeliveryReason"] = number(2)
        #expect(registry.check(bolus) == nil)
        bolus.metadata["HKInsulinDeliveryReason"] = number(3)
        let wrong = try #require(registry.checkError(bolus))
        #expect(wrong.field == "sample.metadata.HKInsulinDeliveryReason" && wrong.reason == .invalidMetadataValue)
        #expect(wrong.expected == "one of basal 1, bolus 2")
        #expect(registry.check(Self.quantity(insulin, 4, "mg")) != nil, "insulin is counted in international units")

        // "%" is a hundredth of a count: 97 % and 0.97 count are the same blood oxygen.
        let oxygen = "HKQuantityTypeIdentifierOxygenSaturation"
        #expect(registry.check(Self.quantity(oxygen, 97, "%")) == nil)
        #expect(registry.check(Self.quantity(oxygen, 0.97, "count")) == nil)
        #expect(registry.check(Self.quantity(oxygen, 101, "%"))?.contains("expected a value in [0, 100] %") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierWalkingAsymmetryPercentage", 25, "%")) == nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyFatPercentage", -1, "%")) != nil)

        // Blood glucose in mmol/L converts to its canonical mg/dL through the molar mass.
        let glucose = "HKQuantityTypeIdentifierBloodGlucose"
        #expect(registry.check(Self.quantity(glucose, 5.5, "mmol<180.15588000005408>/L")) == nil)
        #expect(registry.check(Self.quantity(glucose, 5.5, "mmol/L"))?.contains("sample.quantity.unit") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierVO2Max", 45, "mL/(kg*min)")) == nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierVO2Max", 45, "mL/min")) != nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierDietaryVitaminC", 90, "mg")) == nil)

        // Symptoms: severity 0 (unspecified) to 4 (severe); presence 0 or 1.
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierHeadache", 0)) == nil)
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierHeadache", 4)) == nil)
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierHeadache", 5))?.contains("unspecified 0, notPresent 1, mild 2, moderate 3, severe 4") == true)
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierMoodChanges", 2)) != nil)
        // One type for the environmental audio event under both of HealthKit's names.
        #expect(registry.check(Self.category("HKCategoryTypeIdentifierAudioExposureEvent", 1)) == nil)
        #expect(registry.type("HKCategoryTypeIdentifierEnvironmentalAudioExposureEvent") == nil)
    }

    @Test("Core's validator is called for the two types it has rules for, and not for steps or heart rate")
    func validatedTypesOnly() throws {
        let registry = try Self.registry()
        let standHour = "HKCategoryTypeIdentifierAppleStandHour"
        #expect(registry.catalog.hasValidator(for: standHour))
        #expect(registry.catalog.hasValidator(for: "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute"))
        #expect(!registry.catalog.hasValidator(for: "HKQuantityTypeIdentifierStepCount"))
        #expect(!registry.catalog.hasValidator(for: "HKQuantityTypeIdentifierHeartRate"))
        // The rules still apply where they belong.
        #expect(registry.check(Self.category(standHour, 0, seconds: 2 * 3600))?.contains("at most 3600 s") == true)
        #expect(registry.check(Self.category(standHour, 0, seconds: 3600)) == nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierStepCount", 120, "count", seconds: 2 * 3600)) == nil)
    }

    @Test func kindsAndUnknownTypes() throws {
        let registry = try Self.registry()
        #expect(registry.check(Self.quantity("org.example.unknown", 1, "count"))?.contains("sample.type: got \"org.example.unknown\"; expected a type identifier a loaded plugin declares") == true)
        #expect(registry.check(Self.category("HKQuantityTypeIdentifierStepCount", 1))?.contains("expected a quantity value") == true)
        #expect(registry.check(Self.category("HKCharacteristicTypeIdentifierBloodType", 1))?.contains("characteristic") == true)
        let workout = OneProcessTests.sample("HKWorkoutTypeIdentifier", seconds: 1800) {
            var activity = Salus_V1_WorkoutActivity()
            activity.activityType = 81
            activity.startDate = $0.startDate
            activity.endDate = $0.endDate
            $0.workout = Salus_V1_Workout.with {
                $0.activityType = 81
                $0.activities = [activity]
            }
        }
        #expect(registry.check(workout)?.contains("sample.workout.activityType: got 81; expected a registered workout activity type") == true)
    }
}

extension TypeRegistry {
    /// The first error of a wire sample through the one check (`TypeCatalog.check`).
    func checkError(_ wire: Salus_V1_Sample) -> ValidationError? {
        do {
            let sample = try Sample(wire: wire, path: "sample", source: SourceRevision(appID: "org.example.test", name: "Test"))
            return catalog.validationErrors(of: sample).first
        } catch {
            return error
        }
    }

    /// `checkError` as text: "field: got value; expected what (reason)".
    func check(_ wire: Salus_V1_Sample) -> String? { checkError(wire)?.description }
}
