import Foundation
import SalusModel
import SalusProto
import SwiftProtobuf
import Testing

@testable import SalusPluginHost

/// All thirteen bundled Swift plugins and the C example in one process: the process stays healthy (one Swift
/// runtime, no duplicate-type trouble), shown by using the registry, the validators and
/// SwiftProtobuf after loading.
@Suite("The bundled plugins and the C example in one process")
struct OneProcessTests {
    static func registry() throws -> TypeRegistry {
        let fixtures = try PluginFixtures.get()
        let report = PluginHost.check(directories: [fixtures.bundledDirectory, fixtures.exampleDirectory])
        #expect(report.isClean, "\(report.summary)")
        return report.registry
    }

    static func sample(_ type: String, start: Int64 = 1_700_000_000_000_000, seconds: Int64 = 60,
                       configure: (inout Salus_V1_Sample) -> Void = { _ in }) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = start
        sample.endDate = start + seconds * 1_000_000
        configure(&sample)
        return sample
    }

    @Test func registryAndProtobufAfterLoading() throws {
        let registry = try Self.registry()
        #expect(registry.plugins.count == PluginHost.bundledPlugins.count + 1)
        #expect(registry.types.count == ReferenceTables.types.count + 1)
        #expect(registry.workoutActivityType(named: "swimBikeRun")?.rawValue == 82)
        #expect(registry.valueGroup("allAsleep", of: "HKCategoryTypeIdentifierSleepAnalysis") == [1, 3, 4, 5])
        #expect(registry.valueGroup("disabling", of: "org.example.migraine.attack") == [3, 4])

        // SwiftProtobuf in the host still works: binary, JSON and text round trips.
        var sample = Self.sample("HKQuantityTypeIdentifierHeartRate") {
            $0.quantity = Salus_V1_Quantity.with { $0.value = 72; $0.unit = "count/min" }
            $0.metadata["HKTimeZone"] = Salus_V1_MetadataValue.with { $0.stringValue = "Europe/Paris" }
        }
        let bytes: [UInt8] = try sample.serializedBytes()
        #expect(try Salus_V1_Sample(serializedBytes: bytes) == sample)
        let json = try sample.jsonString()
        #expect(try Salus_V1_Sample(jsonString: json) == sample)
        #expect(sample.textFormatString().contains("count/min"))
        sample.metadata.removeAll()
        #expect(String(describing: sample).contains("HKQuantityTypeIdentifierHeartRate"))
        var manifest = Salus_V1_PluginManifest()
        manifest.id = "org.example.x"
        #expect(try Salus_V1_PluginManifest(serializedBytes: try manifest.serializedBytes() as [UInt8]).id == "org.example.x")
    }

    @Test func validatorsRunConcurrently() async throws {
        let registry = try Self.registry()
        let good = try Self.sample("HKCategoryTypeIdentifierSleepAnalysis", seconds: 8 * 3600) {
            $0.category = Salus_V1_CategoryValue.with { $0.value = 5 }
        }.serializedBytes() as [UInt8]
        let bad = try Self.sample("org.example.migraine.attack", seconds: 0) {
            $0.category = Salus_V1_CategoryValue.with { $0.value = 2 }
        }.serializedBytes() as [UInt8]
        let results = await withTaskGroup(of: (PluginSampleRefusal?, PluginSampleRefusal?).self) { group in
            for _ in 0..<64 {
                group.addTask { (registry.pluginRefusal(encodedSample: good), registry.pluginRefusal(encodedSample: bad)) }
            }
            var all: [(PluginSampleRefusal?, PluginSampleRefusal?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0.0 == nil && $0.1 != nil })
    }
}
