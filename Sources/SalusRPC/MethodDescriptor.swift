/// A method: the full service name and the method name, as a Request frame names them.
public struct MethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// How many messages each side sends.
    public enum Kind: Sendable, Hashable {
        case unary
        case serverStreaming
        case clientStreaming
        case bidirectionalStreaming

        public var clientStreams: Bool { self == .clientStreaming || self == .bidirectionalStreaming }
        public var serverStreams: Bool { self == .serverStreaming || self == .bidirectionalStreaming }
    }

    /// The full service name, "salus.v1.Session".
    public var service: String
    /// The method name, "Hello".
    public var method: String

    public init(service: String, method: String) {
        self.service = service
        self.method = method
    }

    /// "salus.v1.Session/Hello".
    public var description: String { "\(service)/\(method)" }
}
