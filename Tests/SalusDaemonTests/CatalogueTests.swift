import Foundation
import Testing

/// The HealthKit catalogue against the running daemon: `salusd` with the bundled plugins, read
/// through `salusctl types --json`, as a program reading the listing sees it.
///
/// The expectations come from `Tests/Fixtures/healthkit-reference/`: `healthkit-catalogue.tsv`
/// (a verbatim copy of the reference catalogue) and `value-enumerations.tsv` (the cases of each
/// value enumeration the catalogue names, copied by hand from the reference facts), never from
/// the plugins' sources.
@Suite("The HealthKit catalogue against salusctl types --json")
struct CatalogueTests {
    /// One row of the catalogue.
    struct Row: Sendable, CustomTestStringConvertible {
        var identifier: String
        var kind: String
        var canonicalUnit: String
        var aggregation: String
        var categoryValues: String
        var deprecated: String
        var area: String

        /// The string a registered type carries (`.identifier` in HealthKit, `type` in exports).
        var rawString: String { CatalogueTests.rawStrings[identifier] ?? identifier }

        var testDescription: String { identifier }
    }

    static let folder = DaemonHarness.packageRoot.appendingPathComponent("Tests/Fixtures/healthkit-reference")

    /// The tab-separated file `name` in the reference folder, as dictionaries by header name.
    static func table(_ name: String) -> [[String: String]] {
        guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// Every row of the catalogue file.
    static let catalogue: [Row] = table("healthkit-catalogue.tsv").map {
        Row(identifier: $0["identifier"] ?? "", kind: $0["kind"] ?? "", canonicalUnit: $0["canonical_unit"] ?? "",
            aggregation: $0["aggregation"] ?? "", categoryValues: $0["category_values"] ?? "",
            deprecated: $0["deprecated"] ?? "", area: $0["area"] ?? "")
    }

    /// Value enumeration name → its cases ("HKCategoryValueSeverity" → unspecified 0, ...).
    static let valueEnumerations: [String: Set<Case>] = table("value-enumerations.tsv").reduce(into: [:]) { result, row in
        result[row["enum"] ?? "", default: []].insert(Case(name: row["name"] ?? "", rawValue: Int(row["raw_value"] ?? "") ?? -1))
    }

    /// The constants whose raw string is not their name (the catalogue's "Raw strings" section).
    /// `…EnvironmentalAudioExposureEvent` shares its string with the deprecated constant it
    /// replaced, so both rows are one registered type.
    static let rawStrings = [
        "HKCategoryTypeIdentifierEnvironmentalAudioExposureEvent": "HKCategoryTypeIdentifierAudioExposureEvent",
        "HKDataTypeIdentifierStateOfMind": "HKDataTypeStateOfMind",
        "HKDataTypeIdentifierUserAnnotatedMedicationConcept": "HKDataTypeUserAnnotatedMedicationConcept",
    ]

    /// Not public types, so not compared with the catalogue (which gives them no kind of their
    /// own): the sleep goal is a `Record` type seen only in exports, registered by Sleep as a
    /// quantity in hours so that imports keep it, and cardio-fitness medications use is only an
    /// attribute of the export's `<Me>` element. HealthKit has no API for either (the
    /// catalogue's "Export-only rows").
    static let exportOnly: Set<String> = [
        "HKDataTypeSleepDurationGoal", "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse",
    ]

    /// The rows of kinds that no bundled plugin registers yet: none since Lab registers
    /// user-annotated medication concepts. It must equal exactly the catalogue rows that are not
    /// registered: a row missing from the plugins fails the test until it is listed here.
    static let kindsNotYetRegistered: Set<String> = []

    /// Rows whose catalogue kind stands for several of Salus's kinds ("series", "medication",
    /// "other"), with the listing's name for each.
    static let kindByIdentifier = [
        "HKDataTypeIdentifierHeartbeatSeries": "OBJECT_KIND_HEARTBEAT_SERIES",
        "HKWorkoutRouteTypeIdentifier": "OBJECT_KIND_WORKOUT_ROUTE",
        "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent": "OBJECT_KIND_MEDICATION_DOSE_EVENT",
        "HKDataTypeIdentifierUserAnnotatedMedicationConcept": "OBJECT_KIND_USER_ANNOTATED_MEDICATION",
        "HKScoredAssessmentTypeIdentifierGAD7": "OBJECT_KIND_SCORED_ASSESSMENT",
        "HKScoredAssessmentTypeIdentifierPHQ9": "OBJECT_KIND_SCORED_ASSESSMENT",
        "HKActivitySummaryTypeIdentifier": "OBJECT_KIND_ACTIVITY_SUMMARY",
    ]

    /// The catalogue's kinds with the listing's name for each. A kind missing here that a plugin
    /// registers makes the test say which name to add.
    static let kindNames = [
        "quantity": "OBJECT_KIND_QUANTITY", "category": "OBJECT_KIND_CATEGORY",
        "characteristic": "OBJECT_KIND_CHARACTERISTIC", "workout": "OBJECT_KIND_WORKOUT",
        "vision": "OBJECT_KIND_VISION_PRESCRIPTION", "document": "OBJECT_KIND_DOCUMENT",
        "correlation": "OBJECT_KIND_CORRELATION", "electrocardiogram": "OBJECT_KIND_ELECTROCARDIOGRAM",
        "audiogram": "OBJECT_KIND_AUDIOGRAM", "state-of-mind": "OBJECT_KIND_STATE_OF_MIND",
        "clinical": "OBJECT_KIND_CLINICAL_RECORD",
    ]

    /// The catalogue's aggregation column → the listing's name.
    static let aggregationNames = [
        "": "AGGREGATION_STYLE_UNSPECIFIED",
        "cumulative": "AGGREGATION_STYLE_CUMULATIVE",
        "discrete-arithmetic": "AGGREGATION_STYLE_DISCRETE_ARITHMETIC",
        "discrete-temporally-weighted": "AGGREGATION_STYLE_DISCRETE_TEMPORALLY_WEIGHTED",
        "discrete-equivalent-continuous-level": "AGGREGATION_STYLE_DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL",
    ]

    /// The kinds this catalogue test compares field by field.
    static let comparedKinds: Set = ["quantity", "category", "characteristic"]

    /// An enumeration case as the listing prints it.
    struct Case: Hashable, Sendable, CustomStringConvertible {
        var name: String
        var rawValue: Int
        var description: String { "\(name)=\(rawValue)" }
    }

    /// One type of the listing.
    struct Listed {
        var pluginID: String
        var definition: [String: Any]

        func string(_ key: String) -> String? { definition[key] as? String }

        /// Cases (or deprecated aliases); nil when a case lacks its name or raw value.
        func cases(_ key: String = "cases") -> Set<Case>? {
            guard let list = definition[key] as? [[String: Any]] else { return nil }
            var result: Set<Case> = []
            for item in list {
                guard let name = item["name"] as? String, let raw = item["rawValue"] as? Int else { return nil }
                result.insert(Case(name: name, rawValue: raw))
            }
            return result
        }
    }

    /// Runs `salusctl types` with `arguments` against a daemon with the bundled plugins.
    static func salusctlTypes(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binary("salusctl"), ["types"] + arguments + ["--admin-socket", daemon.adminSocketPath])
    }

    /// `salusctl types --json` with `arguments`, decoded: identifier → listed type.
    static func listing(_ daemon: DaemonHarness, _ arguments: [String] = []) async throws -> [String: Listed] {
        let result = try await salusctlTypes(daemon, ["--json"] + arguments)
        #expect(result.status == 0, "\(result.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let entries = try #require(json["types"] as? [[String: Any]])
        var listed: [String: Listed] = [:]
        for entry in entries {
            let definition = try #require(entry["definition"] as? [String: Any])
            let identifier = try #require(definition["identifier"] as? String)
            #expect(listed[identifier] == nil, "\(identifier) listed twice")
            listed[identifier] = Listed(pluginID: entry["pluginId"] as? String ?? "", definition: definition)
        }
        return listed
    }

    @Test("every catalogue row is registered as the catalogue says, and nothing else is")
    func everyRowBothWays() async throws {
        #expect(Self.catalogue.count == 226, "the catalogue file has 226 rows")
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let listed = try await Self.listing(daemon)
        #expect(try await daemon.stop() == 0)

        let rows = Self.catalogue.filter { !Self.exportOnly.contains($0.identifier) }
        for row in rows {
            let type = listed[row.rawString]
            guard Self.comparedKinds.contains(row.kind) else {
                if Self.kindsNotYetRegistered.contains(row.identifier) {
                    #expect(type == nil, "\(row.identifier) (\(row.kind)) is registered now: remove it from kindsNotYetRegistered")
                } else if let type {
                    let expected = Self.kindByIdentifier[row.identifier] ?? Self.kindNames[row.kind]
                    #expect(expected != nil, "\(row.identifier) is registered as \(type.string("kind") ?? "?"): add the catalogue kind \"\(row.kind)\" to kindNames (or the row to kindByIdentifier)")
                    #expect(type.string("kind") == expected, "kind of \(row.identifier)")
                } else {
                    Issue.record("\(row.identifier) (\(row.kind)) is not registered and not in kindsNotYetRegistered")
                }
                continue
            }
            guard let registered = type else {
                Issue.record("\(row.identifier) (raw string \(row.rawString)) is not registered")
                continue
            }
            #expect(registered.pluginID.hasPrefix("org.salus."), "\(row.identifier) comes from \(registered.pluginID)")
            #expect(registered.string("kind") == Self.kindNames[row.kind], "kind of \(row.identifier)")
            #expect(registered.string("canonicalUnit") == row.canonicalUnit, "unit of \(row.identifier)")
            #expect(registered.string("aggregationStyle") == Self.aggregationNames[row.aggregation], "aggregation of \(row.identifier)")
            #expect(registered.string("area") == row.area, "area of \(row.identifier)")

            guard let cases = registered.cases() else {
                Issue.record("cases of \(row.identifier): each needs a name and a raw value")
                continue
            }
            if row.categoryValues.isEmpty {
                #expect(cases.isEmpty, "\(row.identifier) has no enumeration in the catalogue")
                if row.kind == "characteristic" {
                    #expect(registered.string("characteristicValueType") == "CHARACTERISTIC_VALUE_TYPE_DATE", "\(row.identifier)")
                }
                continue
            }
            let expected = try #require(Self.valueEnumerations[row.categoryValues], "\(row.categoryValues) is not in value-enumerations.tsv")
            if row.deprecated.isEmpty {
                #expect(cases == expected, "\(row.identifier): \(row.categoryValues)")
            } else {
                // A deprecated constant whose raw string a current one now carries: its old
                // cases live on as deprecated aliases (or cases) with the same raw values.
                let aliases = try #require(registered.cases("deprecatedAliases"))
                #expect(expected.isSubset(of: cases.union(aliases)), "\(row.identifier): \(row.categoryValues)")
            }
        }

        // The other way: every registered bundled type is a catalogue row, but Salus's own types,
        // which HealthKit has no identifier for (docs/import.md: a workout's alternates).
        let catalogued = Set(Self.catalogue.map(\.rawString))
        let extra = listed.filter { $0.value.pluginID.hasPrefix("org.salus.") && !catalogued.contains($0.key) }
        #expect(extra.keys.sorted() == ["org.salus.core.workoutAlternate"], "registered by the bundled plugins but not in the HealthKit catalogue")
        // The list of kinds not yet registered names catalogue rows only.
        let unknown = Self.kindsNotYetRegistered.subtracting(Self.catalogue.map(\.identifier))
        #expect(unknown.sorted() == [], "kindsNotYetRegistered names rows the catalogue does not have")
    }

    @Test("--json prints raw value 0: inBed and notSet carry \"rawValue\": 0")
    func zeroRawValues() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let result = try await Self.salusctlTypes(daemon, ["--json"])
        #expect(try await daemon.stop() == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let definitions = (json["types"] as? [[String: Any]] ?? []).compactMap { $0["definition"] as? [String: Any] }
        func firstCase(of identifier: String) -> [String: Any]? {
            let type = definitions.first { $0["identifier"] as? String == identifier }
            return (type?["cases"] as? [[String: Any]])?.first
        }
        for (identifier, name) in [
            ("HKCategoryTypeIdentifierSleepAnalysis", "inBed"), ("HKCharacteristicTypeIdentifierBloodType", "notSet"),
            ("HKCategoryTypeIdentifierHeadache", "unspecified"),
        ] {
            let first = try #require(firstCase(of: identifier), "\(identifier) has no cases")
            #expect(first["name"] as? String == name)
            // Present, not merely defaulted: a reader can tell it from a case with no value.
            #expect(first.keys.contains("rawValue"), "\(identifier).\(name) has no rawValue key")
            #expect(first["rawValue"] as? Int == 0)
        }
    }

    @Test("--kind and --area select exactly the catalogue's rows; unknown names list the valid ones")
    func filters() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let symptoms = try await Self.listing(daemon, ["--area", "symptoms"])
        let characteristics = try await Self.listing(daemon, ["--kind", "characteristic"])
        let nutrients = try await Self.listing(daemon, ["--kind", "quantity", "--area", "nutrition"])
        let table = try await Self.salusctlTypes(daemon, ["--area", "hearing"])
        let badKind = try await Self.salusctlTypes(daemon, ["--kind", "correlations"])
        let badArea = try await Self.salusctlTypes(daemon, ["--area", "dentistry"])
        #expect(try await daemon.stop() == 0)

        func rows(kind: String? = nil, area: String? = nil) -> Set<String> {
            Set(Self.catalogue.filter { row in
                !Self.exportOnly.contains(row.identifier) && !Self.kindsNotYetRegistered.contains(row.identifier)
                    && (kind == nil || row.kind == kind) && (area == nil || row.area == area)
            }.map(\.rawString))
        }
        #expect(Set(symptoms.keys) == rows(area: "symptoms"))
        #expect(!symptoms.isEmpty)
        #expect(Set(characteristics.keys) == rows(kind: "characteristic"))
        #expect(Set(nutrients.keys) == rows(kind: "quantity", area: "nutrition"))
        #expect(nutrients.values.allSatisfy { $0.string("kind") == "OBJECT_KIND_QUANTITY" && $0.string("area") == "nutrition" })

        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("HKQuantityTypeIdentifierHeadphoneAudioExposure"))
        #expect(!table.output.contains("HKQuantityTypeIdentifierStepCount"))
        #expect(table.output.contains("\(rows(area: "hearing").count) of "))

        #expect(badKind.status != 0)
        #expect(badKind.output.contains("unknown kind \"correlations\""), "\(badKind.output)")
        #expect(badKind.output.contains("quantity, category, characteristic"), "\(badKind.output)")
        #expect(badArea.status != 0)
        #expect(badArea.output.contains("unknown area \"dentistry\""), "\(badArea.output)")
        #expect(badArea.output.contains("nutrition") && badArea.output.contains("symptoms"), "\(badArea.output)")
    }
}
