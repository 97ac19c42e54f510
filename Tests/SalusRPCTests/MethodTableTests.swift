import Foundation
import SalusProto
import Testing

import SalusRPC

/// `SalusMethods` is generated from the protos by scripts/generate-rpc-methods (and
/// `scripts/generate-protos --check` fails in CI when it is stale); these tests read the protos
/// on their own, so a hand edit of the generated file or a generator that misreads a declaration
/// fails here too.
@Suite("The method table")
struct MethodTableTests {
    static let protoFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protos/salus/v1")

    /// One `rpc` as a proto declares it.
    struct Declared: Hashable, CustomStringConvertible {
        var service: String
        var method: String
        var kind: MethodDescriptor.Kind
        var request: String
        var response: String

        var description: String { "\(service)/\(method) \(kind) \(request) -> \(response)" }
    }

    /// Every rpc of every .proto of `salus.v1`, read without the generator: comments are
    /// dropped, then each `service Name { ... }` block's `rpc Name(stream? A) returns (stream? B)`.
    static func declared() throws -> Set<Declared> {
        let files = try FileManager.default.contentsOfDirectory(atPath: protoFolder.path).filter { $0.hasSuffix(".proto") }
        #expect(!files.isEmpty, "no .proto files in \(protoFolder.path)")
        var methods: Set<Declared> = []
        let service = /service\s+(\w+)\s*\{([^}]*)\}/
        let rpc = /rpc\s+(\w+)\s*\(\s*(stream\s+)?(\w+)\s*\)\s*returns\s*\(\s*(stream\s+)?(\w+)\s*\)/
        for file in files {
            let text = try String(contentsOf: protoFolder.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                .joined(separator: "\n")
            guard text.contains(/package\s+salus\.v1\s*;/) else { continue }
            for block in text.matches(of: service) {
                for match in block.output.2.matches(of: rpc) {
                    let kind: MethodDescriptor.Kind = switch (match.output.2 != nil, match.output.4 != nil) {
                    case (false, false): .unary
                    case (false, true): .serverStreaming
                    case (true, false): .clientStreaming
                    case (true, true): .bidirectionalStreaming
                    }
                    methods.insert(Declared(
                        service: "salus.v1.\(block.output.1)", method: String(match.output.1), kind: kind,
                        request: "Salus_V1_\(match.output.3)", response: "Salus_V1_\(match.output.5)"))
                }
            }
        }
        return methods
    }

    static func generated() -> [Declared] {
        SalusMethods.all.map { method in
            Declared(
                service: method.service, method: method.method, kind: method.kind,
                request: String(describing: method.requestType), response: String(describing: method.responseType))
        }
    }

    @Test("every rpc of the protos is declared once in SalusMethods, with its kind and message types")
    func matchesProtos() throws {
        let declared = try Self.declared()
        let generated = Self.generated()
        #expect(declared.count > 70, "read only \(declared.count) rpcs from \(Self.protoFolder.path)")
        #expect(Set(generated).count == generated.count, "a method is listed twice in SalusMethods.all")
        let missing = declared.subtracting(generated).sorted { $0.description < $1.description }
        let extra = Set(generated).subtracting(declared).sorted { $0.description < $1.description }
        #expect(missing.isEmpty, "in the protos but not in SalusMethods (run scripts/generate-protos): \(missing)")
        #expect(extra.isEmpty, "in SalusMethods but not in the protos (run scripts/generate-protos): \(extra)")
    }

    @Test("a typed method names the service and method its descriptor carries")
    func typedDescriptor() {
        let method = SalusMethods.Store.querySamples
        #expect(method.descriptor == MethodDescriptor(service: "salus.v1.Store", method: "QuerySamples"))
        #expect(method.kind == .serverStreaming)
        #expect("\(method)" == "salus.v1.Store/QuerySamples")
        #expect(method.requestType == Salus_V1_SampleQueryRequest.self)
        #expect(method.responseType == Salus_V1_SampleBatch.self)
    }
}
