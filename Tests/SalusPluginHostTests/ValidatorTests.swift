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
        // The C example is a 1.0 validator: its free text is read as field, value and expected.
        let instant: [UInt8] = try Self.category(attack, 3, seconds: 0).serializedBytes()
        let refusal = try #require(registry.pluginRefusal(encodedSample: instant))
        #expect(refusal.field == "endDate")
        #expect(refusal.message?.hasPrefix("an attack lasting 0 us") == true)
        #expect(refusal.expected == "endDate after startDate")
        #expect(refusal.value.hasPrefix("an attack lasting 0 us (start "))
        let tooLong: [UInt8] = try Self.category(attack, 2, seconds: 8 * 86_400).serializedBytes()
        #expect(registry.pluginRefusal(encodedSample: tooLong)?.expected.contains("at most 604800 s") == true)
        // Through the one check: host rules first, then the C validator.
        #expect(registry.check(Self.category(attack, 4, seconds: 3600)) == nil)
        #expect(registry.check(Self.category(attack, 9, seconds: 3600))?.contains("expected one of org.example.migraine.attack's values: mild 1") == true)
        #expect(registry.check(Self.category(attack, 1, seconds: 3600, metadata: ["org.example.migraine.aura": .with { $0.stringValue = "yes" }]))?.contains("expected a bool value") == true)
        let error = try #require(registry.checkError(Self.category(attack, 3, seconds: 0)))
        #expect(error.field == "sample.endDate" && error.reason == .refusedByPlugin)
        #expect(registry.pluginRefusal(encodedSample: [0xff, 0xff]) != nil)
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
        #expect(registry.check(Self.quantity(heartRate, 70, "kg"))?.contains("sample.quantity.unit: got \"kg\" (mass); expected a unit of") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyTemperature", 104, "degF")) == nil, "40 °C: fever")
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyTemperature", 150, "degC")) != nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierStepCount", -5, "count")) != nil)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierBodyMass", 300, "lb")) == nil)
        // Move time longer than its sample: the Wheelchair validator, in canonical minutes.
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierAppleMoveTime", 2, "hr", seconds: 3600))?.contains("sample.quantity.value: got 120.0 min; expected at most the sample's duration, 60.0 min") == true)
        #expect(registry.check(Self.quantity("HKQuantityTypeIdentifierAppleMoveTime", 30, "min", seconds: 3600)) == nil)
    }

    @Test func kindsAndUnknownTypes() throws {
        let registry = try Self.registry()
        #expect(registry.check(Self.quantity("org.example.unknown", 1, "count"))?.contains("sample.type: got \"org.example.unknown\"; expected a type identifier a loaded plugin declares") == true)
        #expect(registry.check(Self.category("HKQuantityTypeIdentifierStepCount", 1))?.contains("expected a quantity value") == true)
        #expect(registry.check(Self.category("HKCharacteristicTypeIdentifierBloodType", 1))?.contains("characteristic") == true)
        let workout = OneProcessTests.sample("HKWorkoutTypeIdentifier", seconds: 1800) {
            $0.workout = Salus_V1_Workout.with { $0.activityType = 81 }
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
