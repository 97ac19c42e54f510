import Foundation
import SalusModel
import SalusPluginKit
import SalusProto
import SalusWire
import SwiftProtobuf
import Testing

/// SalusPluginKit reads samples and writes manifests through the codec, with no SwiftProtobuf in
/// the plugin: what it reads is what SwiftProtobuf reads, what it writes is SwiftProtobuf's bytes.
@Suite("SalusPluginKit on the codec")
struct PluginKitCodecTests {
    /// What a validator should see of `wire`, from SwiftProtobuf's decoding.
    static func expectedView(_ wire: Salus_V1_Sample) -> SampleView {
        var view = SampleView()
        view.type = wire.type
        view.startDate = wire.startDate
        view.endDate = wire.endDate
        switch wire.value {
        case .quantity(let quantity): view.value = .quantity(quantity.value, unit: quantity.unit)
        case .category(let category): view.value = .category(category.value)
        case .workout(let workout): view.value = .workout(activityType: workout.activityType)
        case .visionPrescription: view.value = .visionPrescription
        case .document: view.value = .document
        case .correlation(let correlation): view.value = .correlation(objectCount: correlation.objects.count)
        case .electrocardiogram: view.value = .electrocardiogram
        case .audiogram: view.value = .audiogram
        case .heartbeatSeries: view.value = .heartbeatSeries
        case .stateOfMind: view.value = .stateOfMind
        case .medicationDoseEvent: view.value = .medicationDoseEvent
        case .scoredAssessment: view.value = .scoredAssessment
        case .clinicalRecord: view.value = .clinicalRecord
        case .workoutRoute: view.value = .workoutRoute
        case .userAnnotatedMedication: view.value = .userAnnotatedMedication
        case nil: view.value = .none
        }
        for (key, value) in wire.metadata {
            switch value.kind {
            case .stringValue(let text): view.metadata[key] = .string(text)
            case .numberValue(let number): view.metadata[key] = .number(number)
            case .boolValue(let flag): view.metadata[key] = .bool(flag)
            case .dateValue(let date): view.metadata[key] = .date(date)
            case .quantityValue(let quantity): view.metadata[key] = .quantity(quantity.value, unit: quantity.unit)
            case nil: break
            }
        }
        return view
    }

    @Test("a validator's view of every sample kind and metadata value type is what SwiftProtobuf decodes")
    func sampleViews() throws {
        for (kind, sample) in EveryKind.samples + EveryKind.metadataSamples.map({ ($0.key, $0.sample) }) {
            let wire = sample.wire
            let bytes: [UInt8] = try wire.serializedBytes()
            #expect(try SampleView(decoding: bytes) == Self.expectedView(wire), "\(kind)")
            let borrowed = try bytes.withUnsafeBufferPointer { try SampleView(decoding: $0.baseAddress, count: $0.count) }
            #expect(borrowed == Self.expectedView(wire), "\(kind) from C memory")
        }
        #expect(try SampleView(decoding: nil, count: 0) == SampleView())
    }

    @Test("a malformed sample is refused with the field and byte, at any depth; a truncated one never traps")
    func malformedSamples() throws {
        // Field 12 (a metadata entry) whose value (field 2) claims 9 bytes and has 2.
        let entry: [UInt8] = [0x0A, 0x01, 0x6B, 0x12, 0x09, 0x08, 0x01]
        let bytes: [UInt8] = [0x12, 0x01, 0x78, 0x62, UInt8(entry.count)] + entry
        let error = #expect(throws: SampleDecodingError.self) { try SampleView(decoding: bytes) }
        #expect(error?.description == "field 2 at byte 9: a length of 9 runs past the end (2 bytes left)")
        let zero = #expect(throws: SampleDecodingError.self) { try SampleView(decoding: [0x12, 0x01, 0x78, 0x00, 0x00]) }
        #expect(zero?.description == "the tag at byte 3: field number 0 (expected 1 to 536870911)")
        // Every prefix of a sample with metadata of every type.
        let whole: [UInt8] = try EveryKind.samples[0].sample.wire.serializedBytes()
        var refused = 0
        for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 500)) {
            do {
                _ = try SampleView(decoding: Array(whole.prefix(length)))
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test("a manifest with every field form is SwiftProtobuf's bytes")
    func manifests() throws {
        let types: [TypeDefinition] = [
            .category("org.example.attack", displayName: "Attack", cases: [EnumerationCase("none", 0), EnumerationCase("severe", 4)])
                .withDeprecatedAliases(EnumerationCase("bad", 4))
                .withValueGroups(ValueGroup("disabling", [3, 4]), ValueGroup("negative", [-1, -200]))
                .requiring(MetadataKeyUse("org.example.trigger", .string))
                .documenting(MetadataKeyUse("HKTimeZone", .string))
                .readPerObject()
                .acceptingAttachments("image/png", "application/pdf")
                .inArea("migraine"),
            .quantity(
                "org.example.pressure", displayName: "Pressure", unit: "mmHg", aggregation: .discreteArithmetic,
                bounds: ValueBounds(min: 0, minInclusive: false, max: 300)
            ).readOnly(),
            .quantity("org.example.count", displayName: "Count", unit: "count", aggregation: .cumulative, bounds: ValueBounds(min: -0.0)),
            .correlation("org.example.pair", displayName: String(repeating: "Long name ", count: 30)),
        ]
        let manifest = PluginManifest(
            id: "org.example.plugin", name: "Example", version: "1.0.0", types: types,
            workoutActivityTypes: [WorkoutActivityTypeDefinition("swimBikeRun", 82), WorkoutActivityTypeDefinition("zero", 0)],
            metadataKeys: [
                MetadataKeyDefinition(
                    "org.example.side", .number, displayName: "Side",
                    allowedValues: [EnumerationCase("left", 1), EnumerationCase("right", 2)], readOnlyForApps: true),
                MetadataKeyDefinition("org.example.dose", .quantity, displayName: "Dose", unit: "mg"),
            ],
            validatedTypes: ["org.example.attack"])
        let bytes = manifest.encoded()
        let decoded = try Salus_V1_PluginManifest(serializedBytes: bytes)
        #expect(bytes == (try decoded.serializedBytes() as [UInt8]))
        #expect(decoded.types.count == 4 && decoded.types[0].valueGroups.count == 2)
        #expect(decoded.types[0].valueGroups[1].rawValues == [-1, -200])
        #expect(decoded.types[1].bounds.optionalMin != nil && !decoded.types[1].bounds.minInclusive)
    }
}
