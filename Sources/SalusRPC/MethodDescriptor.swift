import SwiftProtobuf

/// A method: the full service name and the method name, as a Request frame names them.
package struct MethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// How many messages each side sends.
    package enum Kind: Sendable, Hashable {
        case unary
        case serverStreaming
        case clientStreaming
        case bidirectionalStreaming

        package var clientStreams: Bool { self == .clientStreaming || self == .bidirectionalStreaming }
        package var serverStreams: Bool { self == .serverStreaming || self == .bidirectionalStreaming }
    }

    /// The full service name, "salus.v1.Session".
    package var service: String
    /// The method name, "Hello".
    package var method: String

    package init(service: String, method: String) {
        self.service = service
        self.method = method
    }

    /// "salus.v1.Session/Hello".
    package var description: String { "\(service)/\(method)" }
}

/// A method with its kind and its request and response types: the typed form of a
/// ``MethodDescriptor`` that clients call and routers register, so a call or handler with other
/// message types, or of another kind, does not compile. `SalusMethods` declares one for every
/// method of the protos; the frame layer and the router keep the untyped ``descriptor``.
package protocol RPCMethod: Sendable, CustomStringConvertible {
    associatedtype Request: SwiftProtobuf.Message
    associatedtype Response: SwiftProtobuf.Message
    /// How many messages each side sends.
    static var kind: MethodDescriptor.Kind { get }
    /// The method's names, as a Request frame carries them.
    var descriptor: MethodDescriptor { get }
}

extension RPCMethod {
    /// The full service name, "salus.v1.Session".
    package var service: String { descriptor.service }
    /// The method name, "Hello".
    package var method: String { descriptor.method }
    /// How many messages each side sends.
    package var kind: MethodDescriptor.Kind { Self.kind }
    /// The request message type.
    package var requestType: Request.Type { Request.self }
    /// The response message type.
    package var responseType: Response.Type { Response.self }
    /// "salus.v1.Session/Hello".
    package var description: String { descriptor.description }
}

/// A method that takes one request and returns one response.
package struct UnaryMethod<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>: RPCMethod {
    package static var kind: MethodDescriptor.Kind { .unary }
    package let descriptor: MethodDescriptor

    package init(service: String, method: String) {
        descriptor = MethodDescriptor(service: service, method: method)
    }
}

/// A method that takes one request and streams responses.
package struct ServerStreamingMethod<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>: RPCMethod {
    package static var kind: MethodDescriptor.Kind { .serverStreaming }
    package let descriptor: MethodDescriptor

    package init(service: String, method: String) {
        descriptor = MethodDescriptor(service: service, method: method)
    }
}

/// A method that takes a stream of requests and returns one response.
package struct ClientStreamingMethod<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>: RPCMethod {
    package static var kind: MethodDescriptor.Kind { .clientStreaming }
    package let descriptor: MethodDescriptor

    package init(service: String, method: String) {
        descriptor = MethodDescriptor(service: service, method: method)
    }
}

/// A method where both sides stream.
package struct BidirectionalMethod<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>: RPCMethod {
    package static var kind: MethodDescriptor.Kind { .bidirectionalStreaming }
    package let descriptor: MethodDescriptor

    package init(service: String, method: String) {
        descriptor = MethodDescriptor(service: service, method: method)
    }
}
