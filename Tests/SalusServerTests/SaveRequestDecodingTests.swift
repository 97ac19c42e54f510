import Foundation
import NIOCore
import SalusModel
import SalusProto
import SalusRPC
@testable import SalusServer
import SwiftProtobuf
import Testing

/// A save request decoded a sample at a time answers as decoding the whole request did: the
/// same samples, or the same error (a request that does not decode, wherever it breaks, before
/// no sample, before the first sample that does not convert).
@Suite("Save requests decoded a sample at a time")
struct SaveRequestDecodingTests {
    static let source = SourceRevision(appID: "org.example.decode", name: "Decode")
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The answer of decoding the whole request, then converting each sample, as before.
    static func whole(_ bytes: [UInt8]) -> Result<[Sample], RPCError> {
        do {
            let request = try decodeMessage(Salus_V1_SaveRequest.self, from: ByteBuffer(bytes: bytes))
            guard !request.samples.isEmpty else {
                return .failure(RPCError.invalidArgument(field: "samples", value: "0 samples", expected: "at least one sample"))
            }
            var samples: [Sample] = []
            for (index, wire) in request.samples.enumerated() {
                do throws(ValidationError) {
                    samples.append(try Sample(wire: wire, path: "samples[\(index)]", source: source, creationDate: now))
                } catch {
                    return .failure(RPCError.from(error))
                }
            }
            return .success(samples)
        } catch {
            return .failure(error)
        }
    }

    static func inTurn(_ bytes: [UInt8]) -> Result<[Sample], RPCError> {
        do throws(RPCError) {
            return .success(try StoreService.samples(of: ByteBuffer(bytes: bytes), source: source, now: now))
        } catch {
            return .failure(error)
        }
    }

    /// Samples with their UUIDs given, so both decodings give the same ones.
    static func samples(_ count: Int, _ random: inout SystemRandomNumberGenerator) -> [Salus_V1_Sample] {
        SavedInPartsTests.batch(count).map { sample in
            var sample = sample
            sample.uuid = withUnsafeBytes(of: UUID().uuid) { Data($0) }
            if Int.random(in: 0..<4, using: &random) == 0 { sample.metadata["org.example.note"] = .with { $0.stringValue = "n" } }
            return sample
        }
    }

    /// `samples` with the UUIDs conversion made (a sample whose UUID a changed byte took away
    /// gets a new UUIDv7 each time it is converted, from `now` and random bits) set to nil UUID.
    static func withoutMadeUUIDs(_ samples: [Sample]) -> [Sample] {
        let milliseconds = UInt64(now.timeIntervalSince1970 * 1_000)
        return samples.map { sample in
            var sample = sample
            let bytes = withUnsafeBytes(of: sample.uuid.uuid) { Array($0) }
            let stamp = bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if stamp == milliseconds && bytes[6] >> 4 == 7 { sample.uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
            return sample
        }
    }

    static func check(_ bytes: [UInt8], _ label: String) {
        switch (whole(bytes), inTurn(bytes)) {
        case (.success(let a), .success(let b)):
            #expect(withoutMadeUUIDs(a) == withoutMadeUUIDs(b), "\(label): different samples")
        case (.failure(let a), .failure(let b)):
            #expect(a.message == b.message && a.code == b.code, "\(label): \(a.message) | \(b.message)")
        case (let a, let b):
            Issue.record("\(label): \(a) against \(b)")
        }
    }

    @Test("1,000 requests, whole or broken: truncated anywhere, a byte changed anywhere, a sample that does not convert, unknown fields of every wire type (groups too), a sample field of the wrong wire type, none at all: the same samples or the same error")
    func sameAnswers() throws {
        var random = SystemRandomNumberGenerator()
        // A sample with no UUID is given a new one each time it is converted (a changed byte can
        // take a sample's UUID away): the same sample otherwise.
        var unnamed = Salus_V1_SaveRequest()
        unnamed.samples = Self.samples(2, &random)
        unnamed.samples[1].uuid = Data()
        Self.check(try unnamed.serializedBytes(), "a sample without a UUID")
        for round in 0..<1_000 {
            var request = Salus_V1_SaveRequest()
            request.samples = Self.samples(Int.random(in: 0...12, using: &random), &random)
            if round % 7 == 3, !request.samples.isEmpty {
                request.samples[Int.random(in: 0..<request.samples.count, using: &random)].quantity.unit = "parsecs of joy"
            }
            var bytes: [UInt8] = try request.serializedBytes()
            switch round % 6 {
            case 0: break
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            case 2 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 3:
                // Unknown fields: a varint, a fixed64, bytes, a fixed32, a group with a field inside.
                let unknown: [[UInt8]] = [[0x10, 0x96, 0x01], [0x19, 1, 2, 3, 4, 5, 6, 7, 8], [0x22, 2, 0x41, 0x42], [0x2D, 1, 2, 3, 4], [0x33, 0x08, 0x01, 0x34]]
                bytes.insert(contentsOf: unknown[round % unknown.count], at: 0)
            case 4:
                // Field 1 as a varint, an unmatched group end, a bad group, a key past 2^29.
                let broken: [[UInt8]] = [[0x08, 0x01], [0x0C], [0x33, 0x3C], [0x80, 0x80, 0x80, 0x80, 0x20, 0x00], [0x37]]
                bytes.append(contentsOf: broken[round % broken.count])
            default:
                bytes += [0x0A, 0x00]
            }
            Self.check(bytes, "round \(round)")
        }
    }

    @Test("a request of empty samples is refused naming samples[0].type; one of 200,000 followed by a byte that does not read is refused as a request that does not decode, as before")
    func emptySamples() {
        let empty = [UInt8](repeating: 0, count: 400_000).enumerated().map { $0.offset % 2 == 0 ? UInt8(0x0A) : 0 }
        Self.check(empty, "empty samples")
        if case .failure(let error) = Self.inTurn(empty) { #expect(error.message.contains("samples[0].type")) }
        Self.check(empty + [0x0A], "then a truncated one")
        if case .failure(let error) = Self.inTurn(empty + [0x0A]) { #expect(error.message.contains("does not decode")) }
    }

    @Test("a request of more samples than a save in parts takes is left to the whole-batch path: its ranges are not all kept")
    func tooManyForParts() {
        func empty(_ count: Int) -> ByteBuffer { ByteBuffer(bytes: (0..<count).flatMap { _ in [UInt8(0x0A), 0] }) }
        #expect(StoreService.sampleRanges(empty(StoreService.mostSamplesInParts))?.count == StoreService.mostSamplesInParts)
        #expect(StoreService.sampleRanges(empty(StoreService.mostSamplesInParts + 1)) == nil)
    }

    /// The answer of decoding a whole `AddWorkoutSamplesRequest`, as the builder did.
    static func wholeBuilder(_ bytes: [UInt8]) -> Result<Data, RPCError> {
        do {
            let request = try decodeMessage(Salus_V1_AddWorkoutSamplesRequest.self, from: ByteBuffer(bytes: bytes))
            guard !request.samples.isEmpty else {
                return .failure(RPCError.invalidArgument(field: "samples", value: "0 samples", expected: "at least one sample"))
            }
            for (index, wire) in request.samples.enumerated() {
                do throws(ValidationError) {
                    let sample = try Sample(wire: wire, path: "samples[\(index)]", source: source)
                    if sample.kind == .workout {
                        return .failure(RPCError.from(ValidationError(
                            reason: .wrongKind, field: "samples[\(index)].type", value: sample.type.rawValue,
                            expected: "a sample recorded during the workout; the builder makes the workout itself")))
                    }
                } catch {
                    return .failure(RPCError.from(error))
                }
            }
            return .success(request.builderID)
        } catch {
            return .failure(error)
        }
    }

    @Test("a workout builder's AddSamples read a sample at a time: 600 requests, whole or broken, give the same builder id and sample count, or the same error, as decoding the whole request")
    func builderSamples() throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<600 {
            var request = Salus_V1_AddWorkoutSamplesRequest()
            request.builderID = withUnsafeBytes(of: UUID().uuid) { Data($0) }
            request.samples = Self.samples(Int.random(in: 0...8, using: &random), &random)
            if round % 5 == 2, !request.samples.isEmpty { request.samples[0].quantity.unit = "furlongs of doubt" }
            var bytes: [UInt8] = try request.serializedBytes()
            switch round % 4 {
            case 0: break
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            case 2 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            default: bytes.insert(contentsOf: [0x33, 0x08, 0x01, 0x34, 0x08, 0x05], at: 0)
            }
            let inTurn: Result<(builderID: Data, samples: [Sample]), RPCError>
            do throws(RPCError) {
                inTurn = .success(try WorkoutBuilderService.samples(of: ByteBuffer(bytes: bytes), source: Self.source))
            } catch {
                inTurn = .failure(error)
            }
            switch (Self.wholeBuilder(bytes), inTurn) {
            case (.success(let id), .success(let read)):
                #expect(id == read.builderID, "round \(round)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code && a.message == b.message, "round \(round): \(a.message) | \(b.message)")
            case (let a, let b):
                Issue.record("round \(round): \(a) against \(b)")
            }
        }
    }
}
