import Foundation
import NIOCore
import SalusProto
import SalusStore
@testable import SalusServer
import SwiftProtobuf
import Testing

/// A save's response written straight from the store's results is the message SwiftProtobuf
/// writes for the same results, byte for byte, and an app decodes it to the same results.
@Suite("Save responses written from the store's results")
struct SaveResponseEncodingTests {
    /// A result of every outcome, some with members (a correlation's), some members with members.
    static func result(_ random: inout SystemRandomNumberGenerator, depth: Int = 0) -> SaveResult {
        let outcomes: [SaveOutcome] = [.saved, .keptExisting, .replaced(UUID()), .present, .deletedHere]
        let members = depth < 2 && Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 1...3, using: &random) : 0
        return SaveResult(
            uuid: UUID(), outcome: outcomes.randomElement(using: &random)!,
            objects: (0..<members).map { _ in result(&random, depth: depth + 1) })
    }

    static func wire(_ response: SaveResponse) -> Salus_V1_SaveResponse {
        var wire = Salus_V1_SaveResponse()
        wire.anchor = response.anchor.rawValue
        wire.results = response.results.map(StoreService.wire)
        return wire
    }

    @Test("200 random responses (0 to 300 results of every outcome, nested members, anchors from 0 to 2^64 - 1) are SwiftProtobuf's bytes, and decode to the same messages")
    func sameBytes() throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let count = round == 0 ? 0 : Int.random(in: 0...300, using: &random)
            let anchors: [UInt64] = [0, 1, 127, 128, UInt64.max, UInt64.random(in: 0...UInt64.max, using: &random)]
            let response = SaveResponse(
                results: (0..<count).map { _ in Self.result(&random) }, anchor: Anchor(anchors[round % anchors.count]))
            let expected: [UInt8] = try Self.wire(response).serializedBytes()
            let written = SaveResponseEncoding.encoded(response)
            #expect(Array(written.readableBytesView) == expected, "round \(round): \(count) results")
            let decoded = try Salus_V1_SaveResponse(serializedBytes: Array(written.readableBytesView))
            #expect(decoded == Self.wire(response))
        }
    }

    @Test("a result whose members hold more than 127 bytes has its length written in two bytes, as SwiftProtobuf does")
    func longMember() throws {
        let members = (0..<10).map { _ in SaveResult(uuid: UUID(), outcome: .replaced(UUID()), objects: []) }
        let response = SaveResponse(results: [SaveResult(uuid: UUID(), outcome: .saved, objects: members)], anchor: Anchor(5))
        let expected: [UInt8] = try Self.wire(response).serializedBytes()
        #expect(expected.count > 130)
        #expect(Array(SaveResponseEncoding.encoded(response).readableBytesView) == expected)
    }
}
