import Foundation
import NIOCore
import SalusProto
import SalusRPC
import SwiftProtobuf
import Testing

/// Checks the hex test vectors of docs/protocol.md against frames built here with SwiftProtobuf
/// and `FrameCoding`, so the document and the implementation cannot drift apart.
///
/// A vector is a fenced block whose info string is `hex vector=NAME`: hex bytes, the 10-byte
/// header first. Every vector in the document must have an expected frame below and every
/// expected frame must be in the document.
@Suite("Protocol vectors in docs/protocol.md")
struct ProtocolVectorTests {
    /// One vector as written in the document.
    struct Vector: Sendable {
        var name: String
        var bytes: [UInt8]
    }

    /// The package root: this file is `<root>/Tests/SalusRPCTests/ProtocolVectorTests.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let documentURL = packageRoot.appendingPathComponent("docs/protocol.md")

    static func document() throws -> String {
        try String(contentsOf: documentURL, encoding: .utf8)
    }

    /// Every ```` ```hex vector=NAME ```` block of the document, in order.
    static func vectors() throws -> [Vector] {
        var vectors: [Vector] = []
        var current: (name: String, hex: String)?
        for line in try document().split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed.hasPrefix("```") {
                    vectors.append(Vector(name: block.name, bytes: try parseHex(block.hex, vector: block.name)))
                    current = nil
                } else {
                    block.hex += " " + trimmed
                    current = block
                }
            } else if trimmed.hasPrefix("```hex") {
                let words = trimmed.dropFirst(3).split(separator: " ")
                guard let word = words.first(where: { $0.hasPrefix("vector=") }) else { continue }
                current = (String(word.dropFirst("vector=".count)), "")
            }
        }
        #expect(current == nil, "the block of vector \(current?.name ?? "") is not closed")
        return vectors
    }

    struct BadHex: Error, CustomStringConvertible {
        var description: String
    }

    static func parseHex(_ text: String, vector: String) throws -> [UInt8] {
        try text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { token in
            guard token.count == 2, let byte = UInt8(token, radix: 16) else {
                throw BadHex(description: "vector \(vector): \"\(token)\" is not a hex byte")
            }
            return byte
        }
    }

    // MARK: - The frames the vectors must equal

    static func bytes(_ message: some SwiftProtobuf.Message) throws -> [UInt8] {
        try message.serializedBytes()
    }

    static func frame(
        _ streamID: UInt32,
        _ type: FrameType,
        _ flags: FrameFlags = [],
        _ payload: [UInt8] = []
    ) -> Frame {
        Frame(streamID: streamID, type: type, flags: flags, payload: ByteBuffer(bytes: payload))
    }

    static func request(
        method: MethodDescriptor,
        payload: (some SwiftProtobuf.Message)?,
        configure: (inout Salus_V1_Request) -> Void = { _ in }
    ) throws -> [UInt8] {
        var request = Salus_V1_Request()
        request.service = method.service
        request.method = method.method
        if let payload { request.payload = Data(try bytes(payload)) }
        configure(&request)
        return try bytes(request)
    }

    /// The expected frame of every vector, by name; each is described in words in the document.
    static func expectedFrames() throws -> [String: Frame] {
        var hello = Salus_V1_HelloRequest()
        hello.protocolVersion = 1
        hello.clientName = "salus-example"
        hello.clientVersion = "1.0"
        hello.features = ["cancel", "window_update", "go_away"]

        var echo = Salus_V1_EchoRequest()
        echo.text = "hi"

        var echoResponse = Salus_V1_EchoResponse()
        echoResponse.text = "hi"
        var ok = Salus_V1_Response()
        ok.status = Google_Rpc_Status()
        ok.payload = Data(try bytes(echoResponse))

        var detail = Salus_V1_ErrorDetail()
        detail.reason = .invalidArgument
        detail.field = "milliseconds"
        detail.value = "90000"
        detail.expected = "at most 60000"
        detail.domain = "salus"
        var any = Salus_V1_AnyMessage()
        any.typeURL = "type.googleapis.com/salus.v1.ErrorDetail"
        any.value = Data(try bytes(detail))
        var failure = Salus_V1_Response()
        failure.status.code = 3
        failure.status.message = "milliseconds: 90000 is not valid; expected at most 60000"
        failure.status.details = [any]

        var generate = Salus_V1_GenerateRequest()
        generate.count = 3
        generate.size = 4

        var generated = Salus_V1_EchoResponse()
        generated.payload = Data("ZZZZ".utf8)
        generated.sequence = 1

        var window = Salus_V1_WindowUpdate()
        window.credits = 16

        var goAway = Salus_V1_GoAway()
        goAway.lastStreamID = 9
        goAway.reason = "server shutting down"

        return [
            "hello-request": frame(
                1, .request, [],
                try request(method: SalusMethods.Session.hello.descriptor, payload: hello)
            ),
            "echo-request": frame(
                3, .request, [],
                try request(method: SalusMethods.Diagnostics.echo.descriptor, payload: echo) { request in
                    request.timeoutNano = 5_000_000_000
                    var traceID = Salus_V1_KeyValue()
                    traceID.key = "trace-id"
                    traceID.value = "42"
                    request.metadata = [traceID]
                }
            ),
            "response-ok": frame(3, .response, [], try bytes(ok)),
            "response-error": frame(5, .response, [], try bytes(failure)),
            "server-stream-request": frame(
                7, .request, .remoteClosed,
                try request(method: SalusMethods.Diagnostics.generate.descriptor, payload: generate)
            ),
            "data": frame(7, .data, [], try bytes(generated)),
            "window-update": frame(7, .windowUpdate, [], try bytes(window)),
            "cancel": frame(7, .cancel),
            "client-stream-request": frame(
                9, .request, .remoteOpen,
                try request(method: SalusMethods.Diagnostics.collect.descriptor, payload: Salus_V1_EchoRequest?.none)
            ),
            "client-stream-close": frame(9, .data, [.remoteClosed, .noData]),
            "go-away": frame(0, .goAway, [], try bytes(goAway)),
        ]
    }

    static let expectedNames = [
        "hello-request", "echo-request", "response-ok", "response-error", "server-stream-request", "data",
        "window-update", "cancel", "client-stream-request", "client-stream-close", "go-away",
    ]

    // MARK: - Tests

    @Test("the document holds exactly the expected vectors, each once")
    func vectorNames() throws {
        let names = try Self.vectors().map(\.name)
        #expect(names.count == Set(names).count, "duplicate vector names: \(names)")
        #expect(Set(names) == Set(Self.expectedNames))
        #expect(Set(try Self.expectedFrames().keys) == Set(Self.expectedNames))
    }

    @Test("every vector's header length equals its payload length")
    func headerLengths() throws {
        let vectors = try Self.vectors()
        #expect(!vectors.isEmpty)
        for vector in vectors {
            try #require(vector.bytes.count >= 10, "vector \(vector.name) is shorter than a header")
            let declared = vector.bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            #expect(declared == vector.bytes.count - 10, "vector \(vector.name)")
            #expect(vector.bytes[0] == 0, "vector \(vector.name): the first header byte must be zero")
        }
    }

    @Test("each vector equals the frame built in Swift", arguments: expectedNames)
    func vectorMatchesFrame(name: String) throws {
        let vector = try #require(try Self.vectors().first { $0.name == name }, "no vector \(name) in the document")
        let expected = try #require(try Self.expectedFrames()[name])

        // Encoding the Swift frame gives the document's bytes.
        let encoded = FrameCoding.encode(expected)
        #expect(hex(encoded) == hex(vector.bytes), "vector \(name)")

        // Decoding the document's bytes gives the Swift frame, consuming all of them.
        let decoded = try #require(try FrameCoding.decode(vector.bytes), "vector \(name) does not decode")
        #expect(decoded.consumed == vector.bytes.count)
        #expect(decoded.frame.streamID == expected.streamID)
        #expect(decoded.frame.type == expected.type)
        #expect(decoded.frame.flags == expected.flags)
        #expect(Array(decoded.frame.payload.readableBytesView) == Array(expected.payload.readableBytesView))

        // One byte short is "need more bytes"; a following frame is left unconsumed.
        #expect(try FrameCoding.decode(Array(vector.bytes.dropLast())) == nil)
        let two = try #require(try FrameCoding.decode(vector.bytes + vector.bytes))
        #expect(two.consumed == vector.bytes.count)
    }

    @Test("the document names every frame type, and the vectors use each one")
    func frameTypesNamed() throws {
        let document = try Self.document()
        let types: [(FrameType, String)] = [
            (.request, "Request"), (.response, "Response"), (.data, "Data"),
            (.cancel, "Cancel"), (.windowUpdate, "WindowUpdate"), (.goAway, "GoAway"),
        ]
        let vectorTypes = Set(try Self.vectors().map { $0.bytes[8] })
        for (type, name) in types {
            let code = "`0x" + hex([type.rawValue]) + "`"
            #expect(document.contains("| \(code) | \(name)"), "the frame type table lacks \(code) \(name)")
            #expect(vectorTypes.contains(type.rawValue), "no vector of type \(name)")
        }
    }

    @Test("the error vector's detail decodes as salus.v1.ErrorDetail")
    func errorDetailDecodes() throws {
        let vector = try #require(try Self.vectors().first { $0.name == "response-error" })
        let response = try Salus_V1_Response(serializedBytes: Array(vector.bytes.dropFirst(10)))
        let status = response.status
        #expect(status.code == 3)
        let any = try #require(status.details.first)
        #expect(any.typeURL == RPCError.detailTypeURL)
        let detail = try Salus_V1_ErrorDetail(serializedBytes: any.value)
        #expect(detail.reason == .invalidArgument)
        #expect(detail.domain == "salus")
        #expect(RPCError(status: status).detail == detail)
    }
}

/// Lower-case hex, one space between bytes: how the document writes them.
private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
}
