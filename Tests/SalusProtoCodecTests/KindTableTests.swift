import SalusModel
import SalusPluginKit
import SalusProto
import SwiftProtobuf
import Testing

/// The lists of kinds that scripts/generate-kind-tables writes from the protos, against what
/// SwiftProtobuf generates from the same protos.
@Suite struct KindTableTests {
    @Test("every salus.v1.ObjectKind is one ObjectKind and one TypeKind, of the same number and name")
    func objectKinds() throws {
        let wireKinds = Salus_V1_ObjectKind.allCases.filter { $0 != .unspecified }
        #expect(wireKinds.count == ObjectKind.allCases.count)
        #expect(wireKinds.count == TypeKind.allCases.count)
        for wire in wireKinds {
            let kind = try #require(ObjectKind(wireNumber: wire.rawValue), "\(wire.rawValue)")
            #expect(kind.wireNumber == wire.rawValue)
            #expect(Salus_V1_ObjectKind(rawValue: kind.wireNumber) == wire)
            // proto3 JSON prints an enum value by its proto name.
            let json = try Salus_V1_TypeDefinition.with { $0.kind = wire }.jsonString()
            #expect(json == "{\"kind\":\"\(kind.wireName)\"}")
            let typeKind = try #require(TypeKind(rawValue: Int64(wire.rawValue)), "\(kind)")
            #expect("\(typeKind)" == kind.rawValue)
        }
        #expect(ObjectKind(wireNumber: 0) == nil)
        #expect(ObjectKind(wireNumber: 1_000) == nil)
    }

    @Test("a refusal names a value by its kind")
    func valueNames() {
        #expect(ObjectKind.quantity.valueName == "a quantity value")
        #expect(ObjectKind.electrocardiogram.valueName == "an electrocardiogram value")
        #expect(ObjectKind.userAnnotatedMedication.valueName == "a user annotated medication value")
    }
}
