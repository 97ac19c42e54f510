/// Per-call options of a client call.
package struct CallOptions: Sendable {
    /// How long the call may take; sent to the server as a relative deadline. nil: no deadline.
    package var timeout: Duration?
    /// Metadata sent with the request (at most 8 KiB).
    package var metadata: Metadata

    package init(timeout: Duration? = nil, metadata: Metadata = Metadata()) {
        self.timeout = timeout
        self.metadata = metadata
    }

    var timeoutNanoseconds: Int64 {
        guard let timeout else { return 0 }
        let (seconds, attoseconds) = timeout.components
        return max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
