import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SwiftProtobuf
import Testing

/// The registered types through the owner's client, what `salusctl types` lists and prints as
/// JSON, against the daemon's services in process.
@Suite("AdminClient: registered types")
struct AdminClientTypesTests {
    @Test("types() carries each registered type's kind, unit, aggregation, cases, bounds and flags, in the daemon's order")
    func typedListing() async throws {
        let server = try await ServerHarness.start()
        let rpc = try await server.owner(clientName: "salusctl")
        let admin = AdminClient(rpc: rpc)
        let listing = try await admin.types()
        let response = try await rpc.unary(SalusMethods.Admin.listTypes, request: Salus_V1_ListTypesRequest())
        #expect(listing.types.map(\.identifier) == response.types.map(\.definition.identifier))
        #expect(listing.workoutActivityTypes.map(\.name) == response.workoutActivityTypes.map(\.definition.name))
        #expect(listing.metadataKeys.map(\.key) == response.metadataKeys.map(\.definition.key))
        #expect(listing.types.allSatisfy { $0.kind != nil }, "every kind the daemon sends is known")

        let byID = Dictionary(uniqueKeysWithValues: listing.types.map { ($0.identifier, $0) })
        let steps = try #require(byID["HKQuantityTypeIdentifierStepCount"])
        #expect(steps.kind == .quantity)
        #expect(steps.canonicalUnit == "count")
        #expect(steps.aggregation == .cumulative)
        #expect(steps.characteristicValue == nil)
        let heartRate = try #require(byID["HKQuantityTypeIdentifierHeartRate"])
        #expect(heartRate.aggregation == .discreteTemporallyWeighted)
        let mass = try #require(byID["HKQuantityTypeIdentifierBodyMass"])
        #expect(mass.aggregation == .discreteArithmetic)
        let sleep = try #require(byID["HKCategoryTypeIdentifierSleepAnalysis"])
        #expect(sleep.kind == .category)
        #expect(sleep.aggregation == nil)
        #expect(sleep.cases.contains(TypeValueCase(name: "inBed", rawValue: 0)), "\(sleep.cases)")
        let birth = try #require(byID["HKCharacteristicTypeIdentifierDateOfBirth"])
        #expect(birth.kind == .characteristic)
        #expect(birth.characteristicValue == .date)
        let prescription = try #require(byID["HKVisionPrescriptionTypeIdentifier"])
        #expect(prescription.perObjectReadAuthorization)
        #expect(listing.types.contains { $0.bounds != nil })
        #expect(listing.workoutActivityTypes.contains { $0.name == "running" && $0.rawValue == 37 })
        await admin.close()
    }

    @Test("the types JSON holds every field of the daemon's proto3 JSON with the same value, and also the defaults proto3 drops (rawValue 0, false, null bounds)")
    func json() async throws {
        let server = try await ServerHarness.start()
        let rpc = try await server.owner(clientName: "salusctl")
        let admin = AdminClient(rpc: rpc)
        let listing = try await admin.types()
        let response = try await rpc.unary(SalusMethods.Admin.listTypes, request: Salus_V1_ListTypesRequest())
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        let daemon = try #require(
            JSONSerialization.jsonObject(with: Data(try response.jsonString(options: options).utf8)) as? [String: Any])
        let text = try AdminJSON.text(types: listing.types, of: listing)
        let ours = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])

        var mismatches: [String] = []
        Self.compare(daemon, ours, path: "", into: &mismatches)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")

        let entries = try #require(ours["types"] as? [[String: Any]])
        let sleep = try #require(entries.compactMap { $0["definition"] as? [String: Any] }.first {
            $0["identifier"] as? String == "HKCategoryTypeIdentifierSleepAnalysis"
        })
        let cases = try #require(sleep["cases"] as? [[String: Any]])
        #expect(cases.contains { $0["name"] as? String == "inBed" && ($0["rawValue"] as? NSNumber)?.intValue == 0 })
        #expect(sleep["bounds"] is NSNull)
        #expect(sleep["readOnlyForApps"] as? Bool == false)
        #expect(sleep["aggregationStyle"] as? String == "AGGREGATION_STYLE_UNSPECIFIED")
        // A selection prints only the selected types, and the listing's other parts in full.
        let one = try #require(listing.types.first)
        let selected = try #require(
            JSONSerialization.jsonObject(with: Data(try AdminJSON.text(types: [one], of: listing).utf8)) as? [String: Any])
        #expect((selected["types"] as? [Any])?.count == 1)
        #expect((selected["workoutActivityTypes"] as? [Any])?.count == listing.workoutActivityTypes.count)
        await admin.close()
    }

    @Test("unitCatalogue() lists the daemon's units with dimension and conversion, and its JSON is the daemon's whole catalogue")
    func unitCatalogue() async throws {
        let server = try await ServerHarness.start()
        let rpc = try await server.owner(clientName: "salusctl")
        let admin = AdminClient(rpc: rpc)
        let catalogue = try await admin.unitCatalogue()
        let byUnit = Dictionary(catalogue.units.map { ($0.unit, $0) }, uniquingKeysWith: { first, _ in first })
        let mile = try #require(byUnit["mi"])
        #expect(mile.dimension == "length")
        #expect(abs(mile.one - 1609.344) < 1e-9, "\(mile)")
        let fahrenheit = try #require(byUnit["degF"])
        #expect(abs(fahrenheit.thirtySevenAndAHalf - 37.5 * fahrenheit.one) > 1, "an offset unit: \(fahrenheit)")
        for name in ["D", "ml", "fL", "µg"] { #expect(byUnit[name] != nil, "\(name)") }
        let response = try await rpc.unary(SalusMethods.Catalogue.get, request: Salus_V1_CatalogueRequest())
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        // Parsed, not byte for byte: a symbol's dimension is a map, whose keys proto3 JSON prints
        // in the order of each message's dictionary.
        let ours = try JSONSerialization.jsonObject(with: Data(try AdminJSON.text(catalogue: catalogue).utf8)) as? NSDictionary
        let daemons = try JSONSerialization.jsonObject(with: Data(try response.jsonString(options: options).utf8)) as? NSDictionary
        #expect(ours != nil && ours == daemons)
        #expect(catalogue.units.map(\.unit) == response.units.map(\.unit))
        await admin.close()
    }

    /// Every value of `expected` (the daemon's proto3 JSON) is in `actual` at the same path.
    static func compare(_ expected: Any, _ actual: Any?, path: String, into mismatches: inout [String]) {
        switch expected {
        case let object as [String: Any]:
            guard let actual = actual as? [String: Any] else { return mismatches.append("\(path): not an object") }
            for (key, value) in object { compare(value, actual[key], path: path + "." + key, into: &mismatches) }
        case let array as [Any]:
            guard let actual = actual as? [Any], actual.count == array.count else {
                return mismatches.append("\(path): not an array of \(array.count)")
            }
            for (index, value) in array.enumerated() { compare(value, actual[index], path: "\(path)[\(index)]", into: &mismatches) }
        case let number as NSNumber:
            if (actual as? NSNumber)?.doubleValue != number.doubleValue { mismatches.append("\(path): \(number) != \(String(describing: actual))") }
        case let string as String:
            if actual as? String != string { mismatches.append("\(path): \(string) != \(String(describing: actual))") }
        default:
            mismatches.append("\(path): unexpected \(expected)")
        }
    }
}
