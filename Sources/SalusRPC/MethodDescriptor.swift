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
