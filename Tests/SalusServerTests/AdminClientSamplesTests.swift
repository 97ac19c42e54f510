import Foundation
@testable import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SwiftProtobuf
import Testing

/// Every app's samples through the owner's client in process, and the kind names of the type
/// listing, which no list of kinds in SalusAdmin spells out.
@Suite("AdminClient: every app's samples, and kind names from the protos")
struct AdminClientSamplesTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"

    @Test("samples(_:) reads every app's samples in the order asked; sampleRange spans the first start to the last end over several types, nil for a type without samples")
    func samplesAndRange() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        for (app, walks) in [(StatisticsWalk.phone, StatisticsWalk.phoneWalks), (StatisticsWalk.watch, StatisticsWalk.watchWalks)] {
            let client = try await server.app(app)
            _ = try await client.unary(SalusMethods.Store.save, request: StatisticsWalk.saveRequest(walks))
            await client.close()
        }
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let all = try await admin.samples(SampleQueryDescriptor(type: SampleType(Self.steps), sortDescriptors: [.startDate()]))
        #expect(all.map(\.startDate) == [StatisticsWalk.date(20, 9), StatisticsWalk.date(20, 9, 30), StatisticsWalk.date(20, 18), StatisticsWalk.date(20, 23, 30)])
        #expect(Set(all.map(\.sourceRevision.appID)) == [StatisticsWalk.phone, StatisticsWalk.watch])
        var streamed = 0
        for try await _ in SampleQueryDescriptor(type: SampleType(Self.steps), predicate: .sources([StatisticsWalk.watch])).samples(for: admin.store) {
            streamed += 1
        }
        #expect(streamed == 2)

        #expect(try await admin.sampleRange(of: [Self.steps]) == DateInterval(start: StatisticsWalk.date(20, 9), end: StatisticsWalk.date(21, 0, 30)))
        #expect(try await admin.sampleRange(of: ["HKQuantityTypeIdentifierHeartRate"]) == nil)
        #expect(try await admin.sampleRange(of: ["HKQuantityTypeIdentifierHeartRate", Self.steps])?.start == StatisticsWalk.date(20, 9))
        #expect(try await admin.routes(of: UUID()).isEmpty)
        await admin.close()
    }

    @Test("every salus.v1 object kind, aggregation style, metadata value type and characteristic value type is named as proto3 JSON names it, and maps to the admin API's enums, without a list of them in SalusAdmin")
    func enumNamesFromTheProtos() throws {
        func jsonName<Message: SwiftProtobuf.Message>(_ message: Message, field: String) throws -> String? {
            let object = try JSONSerialization.jsonObject(with: Data(message.jsonString().utf8)) as? [String: Any]
            return object?[field] as? String
        }
        for kind in Salus_V1_ObjectKind.allCases {
            let expected = try jsonName(Salus_V1_TypeDefinition.with { $0.kind = kind }, field: "kind") ?? "OBJECT_KIND_UNSPECIFIED"
            #expect(TypeListingJSON.name(kind) == expected)
            if kind != .unspecified {
                let info = Salus_V1_RegisteredTypeInfo.with { $0.definition.kind = kind }
                #expect(RegisteredType(info).kind != nil, "\(kind) has no ObjectKind")
            }
        }
        for style in Salus_V1_AggregationStyle.allCases {
            let expected = try jsonName(Salus_V1_TypeDefinition.with { $0.aggregationStyle = style }, field: "aggregationStyle") ?? "AGGREGATION_STYLE_UNSPECIFIED"
            #expect(TypeListingJSON.name(style) == expected)
        }
        for type in Salus_V1_CharacteristicValueType.allCases {
            let expected = try jsonName(Salus_V1_TypeDefinition.with { $0.characteristicValueType = type }, field: "characteristicValueType")
                ?? "CHARACTERISTIC_VALUE_TYPE_UNSPECIFIED"
            #expect(TypeListingJSON.name(type) == expected)
        }
        for type in Salus_V1_MetadataValueType.allCases {
            let expected = try jsonName(Salus_V1_MetadataKeyDefinition.with { $0.valueType = type }, field: "valueType") ?? "METADATA_VALUE_TYPE_UNSPECIFIED"
            #expect(TypeListingJSON.name(type) == expected)
        }
        #expect(TypeListingJSON.name(Salus_V1_ObjectKind(rawValue: 999)!) == "999", "a kind this build does not know: its number")
    }
}
