import Foundation
import SalusModel
import Testing

@testable import SalusPluginHost

/// The thirteen bundled plugins load and carry HealthKit's identifiers, raw values, units and
/// aggregation styles as the reference tables give them.
@Suite("Bundled plugins against the HealthKit reference")
struct BundledPluginTests {
    static func report() throws -> PluginLoadReport {
        PluginHost.check(directories: [try PluginFixtures.get().bundledDirectory])
    }

    @Test func allBundledLoad() throws {
        let report = try Self.report()
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(Set(report.loaded.map(\.id)) == Set(PluginHost.bundledPlugins.keys))
        let allBundled = report.loaded.allSatisfy { $0.isBundled }
        #expect(allBundled)
        // Directory order is deterministic: sorted file names.
        let names = report.loaded.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        #expect(names == PluginFixtures.bundledFiles.sorted())
    }

    @Test func referenceTablesAreThere() {
        #expect(ReferenceTables.types.count > 60)
        #expect(ReferenceTables.enumerations.count > 80)
        #expect(ReferenceTables.workoutActivityTypes.count > 80)
        #expect(ReferenceTables.metadataKeys.count > 30)
    }

    @Test("Each type as in the reference", arguments: ReferenceTables.types)
    func type(_ row: ReferenceTables.Row) throws {
        let registry = try Self.report().registry
        let type = try #require(registry.type(row["identifier"]), "\(row["identifier"]) is not registered")
        #expect(type.pluginID == row["plugin"])
        #expect(type.kind.rawValue == row["kind"])
        if row["unit"] == "-" {
            #expect(type.canonicalUnit == nil)
        } else {
            let expected = try SalusUnit(parsing: row["unit"])
            #expect(type.canonicalUnit == expected, "unit of \(type.identifier)")
        }
        if row["aggregation"] == "-" {
            #expect(type.aggregationStyle == nil)
        } else {
            #expect(type.aggregationStyle.map { "\($0)" } == row["aggregation"])
        }
        #expect(type.readOnlyForApps == (row["read_only"] == "yes"))
        #expect(!type.displayName.isEmpty)
    }

    @Test("No plugin registers a type the reference does not list for it")
    func noExtraTypes() throws {
        let registry = try Self.report().registry
        for plugin in registry.plugins {
            let expected = Set(ReferenceTables.types.filter { $0["plugin"] == plugin.id }.map { $0["identifier"] })
            #expect(Set(plugin.typeIdentifiers) == expected, "\(plugin.id)")
        }
    }

    @Test("Enumeration cases, deprecated aliases and value groups", arguments: ReferenceTables.enumerations)
    func enumeration(_ row: ReferenceTables.Row) throws {
        let registry = try Self.report().registry
        let type = try #require(registry.type(row["identifier"]))
        switch row["role"] {
        case "case":
            let value = try #require(Int64(row["raw_value"]))
            #expect(type.case(rawValue: value)?.name == row["name"], "\(type.identifier) \(row["name"]) = \(value)")
        case "alias":
            let value = try #require(Int64(row["raw_value"]))
            #expect(type.deprecatedAliases.contains(TypeRules.Case(name: row["name"], rawValue: value)))
            #expect(type.rawValue(named: row["name"]) == value)
        case "group":
            let values = row["raw_value"].split(separator: ",").compactMap { Int64($0) }
            #expect(registry.valueGroup(row["name"], of: type.identifier).map(Set.init) == Set(values))
        default:
            Issue.record("unknown role \(row["role"])")
        }
    }

    @Test("Every case of every enumerated type is in the reference")
    func noExtraCases() throws {
        let registry = try Self.report().registry
        for type in registry.types.values where !type.cases.isEmpty {
            let expected = ReferenceTables.enumerations
                .filter { $0["identifier"] == type.identifier && $0["role"] == "case" }
                .map { "\($0["name"])=\($0["raw_value"])" }
            #expect(Set(type.cases.map { "\($0.name)=\($0.rawValue)" }) == Set(expected), "\(type.identifier)")
        }
    }

    @Test("Workout activity types", arguments: ReferenceTables.workoutActivityTypes)
    func workoutActivityType(_ row: ReferenceTables.Row) throws {
        let registry = try Self.report().registry
        let raw = try #require(UInt32(row["raw_value"]))
        let activity = try #require(registry.workoutActivityTypes[raw], "\(row["name"]) \(raw)")
        #expect(activity.name == row["name"])
        #expect(activity.pluginID == row["plugin"])
    }

    @Test func noExtraWorkoutActivityTypes() throws {
        let registry = try Self.report().registry
        #expect(registry.workoutActivityTypes.count == ReferenceTables.workoutActivityTypes.count)
        #expect(registry.workoutActivityTypes[81] == nil, "81 is not public")
    }

    @Test("Metadata keys", arguments: ReferenceTables.metadataKeys)
    func metadataKey(_ row: ReferenceTables.Row) throws {
        let registry = try Self.report().registry
        let key = try #require(registry.metadataKeys[row["raw_key"]], "\(row["constant"]) (\(row["raw_key"]))")
        #expect(key.pluginID == row["plugin"])
        #expect(key.valueType.rawValue == row["value_type"])
        if row["unit_of_dimension"] != "-" {
            let unit = try SalusUnit(parsing: row["unit_of_dimension"])
            #expect(key.unit?.isCompatible(with: unit) == true, "\(key.key): \(String(describing: key.unit)) vs \(unit)")
        }
    }

    @Test func typeRules() throws {
        let registry = try Self.report().registry
        let flow = try #require(registry.type("HKCategoryTypeIdentifierMenstrualFlow"))
        #expect(flow.requiredMetadataKeys.map(\.key) == ["HKMenstrualCycleStart"])
        #expect(flow.requiredMetadataKeys.first?.valueType == .bool)
        let sex = try #require(registry.type("HKCategoryTypeIdentifierSexualActivity"))
        #expect(sex.optionalMetadataKeys.contains { $0.key == "HKSexualActivityProtectionUsed" && $0.valueType == .bool })
        let vision = try #require(registry.type("HKVisionPrescriptionTypeIdentifier"))
        #expect(vision.perObjectReadAuthorization)
        #expect(vision.allowedAttachmentContentTypes.contains("application/pdf"))
        #expect(vision.allowedAttachmentContentTypes.allSatisfy { $0.hasPrefix("image/") || $0 == "application/pdf" })
        #expect(!vision.allowedAttachmentContentTypes.contains("image/gif"))
        let hrr = try #require(registry.type("HKQuantityTypeIdentifierHeartRateRecoveryOneMinute"))
        #expect(hrr.optionalMetadataKeys.count == 4)
        #expect(registry.type("HKCharacteristicTypeIdentifierDateOfBirth")?.isDateCharacteristic == true)
        let placement = try #require(registry.metadataKeys["HKMetadataKeyDevicePlacementSide"])
        #expect(placement.allowedValues.map(\.rawValue) == [0, 1, 2, 3])
        #expect(registry.metadataKeys["HKMetadataKeyAppleDeviceCalibrated"]?.readOnlyForApps == true)

        // The catalogue's additions.
        let insulin = try #require(registry.type("HKQuantityTypeIdentifierInsulinDelivery"))
        #expect(insulin.requiredMetadataKeys.map(\.key) == ["HKInsulinDeliveryReason"])
        #expect(registry.metadataKeys["HKInsulinDeliveryReason"]?.allowedValues.map(\.rawValue) == [1, 2])
        #expect(registry.metadataKeys["HKBloodGlucoseMealTime"]?.allowedValues.map(\.rawValue) == [1, 2])
        #expect(registry.metadataKeys["HKVO2MaxTestType"]?.allowedValues.map(\.rawValue) == [1, 2, 3, 4])
        #expect(registry.metadataKeys["HKHeartRateSensorLocation"]?.allowedValues.map(\.rawValue) == Array(0...6))
        #expect(registry.metadataKeys["HKBodyTemperatureSensorLocation"]?.allowedValues.map(\.rawValue) == Array(0...11))
        // The unit as HealthKit spells it, parsed to the same unit as the upper-case spelling.
        let vo2 = try #require(registry.type("HKQuantityTypeIdentifierVO2Max"))
        #expect(vo2.canonicalUnitText == "ml/(kg*min)")
        #expect(vo2.canonicalUnit == (try SalusUnit(parsing: "mL/(kg*min)")))
        let audio = try #require(registry.type("HKCategoryTypeIdentifierAudioExposureEvent"))
        #expect(audio.rawValue(named: "loudEnvironment") == 1 && audio.rawValue(named: "momentaryLimit") == 1)
        // Every bundled type has an area.
        #expect(registry.types.values.filter(\.area.isEmpty).map(\.identifier) == [])
    }
}
