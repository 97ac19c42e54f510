import Foundation
import SalusProto
import Testing

@testable import SalusPluginHost

/// Each broken fixture is refused with its own code and a message naming the problem, while the
/// bundled plugins and the C example load beside them.
@Suite("Refused plugins")
struct RefusedPluginTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        var code: PluginRefusal.Code
        var fragment: String
        var testDescription: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(file: "refused-not-a-library.so", code: .notALibrary, fragment: "not a loadable shared library"),
        Expectation(file: "refused-missing-entry.so", code: .missingEntrySymbol, fragment: "does not export salus_plugin_get_entry"),
        Expectation(file: "refused-wrong-abi.so", code: .abiMajorMismatch, fragment: "built for plugin ABI 2.0"),
        Expectation(file: "refused-struct-too-small.so", code: .structTooSmall, fragment: "struct_size is 16 bytes; expected at least 40"),
        Expectation(file: "refused-undecodable-manifest.so", code: .undecodableManifest, fragment: "is not a protobuf-encoded salus.v1.PluginManifest"),
        Expectation(file: "refused-duplicate-identifier.so", code: .duplicateIdentifier, fragment: "\"org.example.migraine.attack\" is already registered by org.example.migraine"),
        Expectation(file: "refused-wrong-dimension.so", code: .unitWrongDimension, fragment: "\"degC\" is a temperature, which cannot be summed"),
        Expectation(file: "refused-not-reverse-dns.so", code: .notReverseDNS, fragment: "\"HeadacheSeverity\" is not a reverse-DNS type identifier"),
        Expectation(file: "refused-healthkit-identifier.so", code: .reservedIdentifier, fragment: "HealthKit's HK namespace"),
        Expectation(file: "refused-reserved-plugin-id.so", code: .reservedIdentifier, fragment: "reserved for bundled plugins"),
    ]

    /// The area is typed after `salusctl types --area`: a short lowercase word or nothing.
    @Test("A type whose area is not a short lowercase word is refused, naming the field")
    func badArea() throws {
        func manifest(area: String) -> Salus_V1_PluginManifest {
            Salus_V1_PluginManifest.with {
                $0.id = "org.example.water"
                $0.name = "Water"
                $0.version = "1.0.0"
                $0.types = [Salus_V1_TypeDefinition.with {
                    $0.identifier = "org.example.water.glasses"
                    $0.kind = .quantity
                    $0.canonicalUnit = "count"
                    $0.aggregationStyle = .cumulative
                    $0.displayName = "Glasses"
                    $0.area = area
                }]
            }
        }
        let accepted = try ManifestChecker(manifest: manifest(area: "nutrition"), isBundled: false, owners: .init()).check()
        #expect(accepted.types.first?.area == "nutrition")
        #expect(try ManifestChecker(manifest: manifest(area: ""), isBundled: false, owners: .init()).check().types.first?.area == "")
        let error = try #require(throws: PluginRefusal.self) {
            try ManifestChecker(manifest: manifest(area: "Water Intake"), isBundled: false, owners: .init()).check()
        }
        #expect(error.code == .invalidManifest)
        #expect(error.message.hasPrefix("types[0] (org.example.water.glasses).area: \"Water Intake\" is not an area name"), "\(error.message)")
    }

    @Test("validated_types limits the validator to the types it names; a type the manifest does not declare is refused")
    func validatedTypes() throws {
        func manifest(validated: [String]) -> Salus_V1_PluginManifest {
            Salus_V1_PluginManifest.with {
                $0.id = "org.example.water"
                $0.name = "Water"
                $0.version = "1.0.0"
                $0.types = ["org.example.water.glasses", "org.example.water.bottles"].map { identifier in
                    Salus_V1_TypeDefinition.with {
                        $0.identifier = identifier
                        $0.kind = .quantity
                        $0.canonicalUnit = "count"
                        $0.aggregationStyle = .cumulative
                        $0.displayName = "Water"
                    }
                }
                $0.validatedTypes = validated
            }
        }
        let every = try ManifestChecker(manifest: manifest(validated: []), isBundled: false, owners: .init()).check()
        let everyValidated = every.types.filter(\.validated).count
        #expect(everyValidated == 2)
        let one = try ManifestChecker(manifest: manifest(validated: ["org.example.water.bottles"]), isBundled: false, owners: .init())
            .check()
        let validated = one.types.filter(\.validated).map(\.identifier)
        #expect(validated == ["org.example.water.bottles"])
        let error = try #require(throws: PluginRefusal.self) {
            try ManifestChecker(
                manifest: manifest(validated: ["org.example.water.bottles", "org.example.water.cups"]), isBundled: false,
                owners: .init()
            ).check()
        }
        #expect(error.code == .invalidManifest)
        #expect(
            error.message
                == "validated_types[1]: \"org.example.water.cups\" is not a sample type this manifest declares; expected one of the identifiers in types",
            "\(error.message)")
    }

    static func report() throws -> PluginLoadReport {
        let fixtures = try PluginFixtures.get()
        return PluginHost.check(directories: [fixtures.bundledDirectory, fixtures.exampleDirectory, fixtures.refusedDirectory])
    }

    @Test("Refused with its own reason", arguments: expectations)
    func refused(_ expectation: Expectation) throws {
        let report = try Self.report()
        let refusal = try #require(report.refused.first { $0.path.hasSuffix("/" + expectation.file) }, "\(expectation.file) was not refused")
        #expect(refusal.reason.code == expectation.code)
        #expect(refusal.reason.message.contains(expectation.fragment), "\(refusal.reason.message)")
        #expect(report.summary.contains(refusal.path), "the summary names the file")
    }

    @Test func everyFixtureIsRefusedAndTheOthersLoad() throws {
        let report = try Self.report()
        #expect(report.refused.count == Self.expectations.count, "\(report.refused.map(\.description))")
        #expect(Set(report.loaded.map(\.id)) == Set(PluginHost.bundledPlugins.keys).union(["org.example.migraine"]))
        #expect(report.registry.type("org.example.migraine.attack")?.pluginID == "org.example.migraine")
        #expect(report.registry.type("org.example.thing") == nil)
        #expect(!report.isClean)
    }

    @Test func messagesAreDistinct() throws {
        let report = try Self.report()
        let messages = report.refused.map(\.reason.message)
        #expect(Set(messages).count == messages.count)
        // The required failure kinds each have a code of their own.
        let required: [PluginRefusal.Code] = [
            .notALibrary, .missingEntrySymbol, .abiMajorMismatch, .structTooSmall, .undecodableManifest,
            .duplicateIdentifier, .unitWrongDimension, .notReverseDNS,
        ]
        #expect(Set(required).count == required.count)
        #expect(Set(required).isSubset(of: Set(report.refused.map(\.reason.code))))
    }

    @Test func checkingTwiceGivesTheSameAnswer() throws {
        let first = try Self.report()
        let second = try Self.report()
        #expect(first.loaded == second.loaded)
        #expect(first.refused == second.refused)
    }

    @Test func unreadableDirectoryIsReported() {
        let report = PluginHost.check(directories: ["/nonexistent/salus-plugins"])
        #expect(report.unreadableDirectories.count == 1)
        #expect(report.loaded.isEmpty)
        #expect(!report.isClean)
    }
}
