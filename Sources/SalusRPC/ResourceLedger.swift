import Synchronization

/// Whom the connections of a listener are counted against, for the per-app caps of
/// ``RPCServer/Configuration``.
package enum ListenerAccounting: Hashable, Sendable {
    /// The owner's admin socket: its connections come from a reserve of their own
    /// (`maxOwnerConnections`), never counted against an app or the cap over every app, so the
    /// owner is served whatever the apps do.
    case owner
    /// An app's own socket: every connection through it is this app's.
    case app(String)
    /// A socket several peers share: a connection is counted against its peer's uid, or, when
    /// `declaredAppIDs` (a development daemon's app socket), against the app id its Hello
    /// declares.
    case shared(declaredAppIDs: Bool)
}

/// Whose resources a connection or a call uses.
enum Tenant: Hashable, Sendable, CustomStringConvertible {
    case owner
    case app(String)
    /// A connection on a shared socket that has not said which app it is: its peer's uid.
    case peer(uid: UInt32)

    var description: String {
        switch self {
        case .owner: "the owner"
        case .app(let id): id
        case .peer(let uid): "uid \(uid)"
        }
    }
}

/// What every app (and the owner) holds at once: connections, calls and buffered bytes, each
/// against its cap.
///
/// **Rule: a cap is per app, and the owner has a reserve of its own.** One app's connections,
/// calls or bytes never count against another's, and none of them counts against the owner's
/// admin socket. Why: with one cap over everything, one app holding every place (530 idle
/// connections, 2,000 unread streams) shut out the other apps and `salusctl status`.
/// What breaks without it: any app with a socket can deny service to all the others.
///
/// **Rule: what is counted is released exactly once,** when the connection closes, the call's
/// handler returns, or the bytes leave the buffer: a refused request holds nothing.
final class ResourceLedger: Sendable {
    struct Limits: Sendable {
        var maxConnections: Int
        var maxConnectionsPerApp: Int
        var maxCallsPerApp: Int
        var maxBufferedBytesPerApp: Int
        var maxOwnerConnections: Int
    }

    private struct Usage {
        var connections = 0
        var calls = 0
        var bufferedBytes = 0
        var isEmpty: Bool { connections == 0 && calls == 0 && bufferedBytes == 0 }
    }

    private struct State {
        var usage: [Tenant: Usage] = [:]
        /// Connections admitted over every app (the owner's not included).
        var appConnections = 0
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Counts one more connection of `tenant`, or returns the error naming the cap it would pass.
    func admitConnection(_ tenant: Tenant) -> RPCError? {
        state.withLock { state -> RPCError? in
            let open = state.usage[tenant]?.connections ?? 0
            if tenant == .owner {
                guard open < limits.maxOwnerConnections else {
                    return Self.exhausted(
                        "the owner has \(open) connections open on the admin socket, its limit; close one and connect again",
                        field: "ownerConnections", value: open + 1, limit: limits.maxOwnerConnections,
                        what: "connections of the owner open at once")
                }
            } else {
                guard state.appConnections < limits.maxConnections else {
                    return Self.exhausted(
                        "salusd has \(state.appConnections) connections open, its limit; close one and connect again",
                        field: "connections", value: state.appConnections + 1, limit: limits.maxConnections,
                        what: "connections open at once")
                }
                guard open < limits.maxConnectionsPerApp else {
                    return Self.exhausted(
                        "\(tenant) has \(open) connections open, the limit of one app; close one and connect again",
                        field: "connectionsPerApp", value: open + 1, limit: limits.maxConnectionsPerApp,
                        what: "connections of one app open at once")
                }
                state.appConnections += 1
            }
            state.usage[tenant, default: Usage()].connections += 1
            return nil
        }
    }

    /// Releases a connection counted by ``admitConnection(_:)``.
    func releaseConnection(_ tenant: Tenant) {
        state.withLock { state in
            if tenant != .owner { state.appConnections -= 1 }
            Self.update(&state, tenant) { $0.connections -= 1 }
        }
    }

    /// Counts one more open call of `tenant`, or returns the error naming the cap.
    func openCall(_ tenant: Tenant) -> RPCError? {
        state.withLock { state -> RPCError? in
            let open = state.usage[tenant]?.calls ?? 0
            guard open < limits.maxCallsPerApp else {
                return Self.exhausted(
                    "\(tenant) has \(open) calls open, the limit of one app; wait for one to end",
                    field: "callsPerApp", value: open + 1, limit: limits.maxCallsPerApp,
                    what: "calls of one app open at once over all its connections")
            }
            state.usage[tenant, default: Usage()].calls += 1
            return nil
        }
    }

    /// Releases a call counted by ``openCall(_:)``.
    func closeCall(_ tenant: Tenant) {
        state.withLock { state in Self.update(&state, tenant) { $0.calls -= 1 } }
    }

    /// Counts `bytes` more buffered for `tenant` (`what` says which: "an unread message",
    /// "locations"…), or returns the error naming the cap and nothing is counted.
    func reserve(_ bytes: Int, for tenant: Tenant, what: String) -> RPCError? {
        guard bytes > 0 else { return nil }
        return state.withLock { state -> RPCError? in
            let held = state.usage[tenant]?.bufferedBytes ?? 0
            let limit = limits.maxBufferedBytesPerApp
            guard bytes <= limit - held else {
                return Self.exhausted(
                    "\(tenant) would hold \(held + bytes) bytes buffered with \(what), over the limit of one app of \(limit) bytes; "
                        + "read what was asked for, send less at once, or wait for calls to end",
                    field: "bufferedBytesPerApp", value: held + bytes, limit: limit,
                    what: "bytes buffered for one app's calls at once")
            }
            state.usage[tenant, default: Usage()].bufferedBytes += bytes
            return nil
        }
    }

    /// Releases bytes counted by ``reserve(_:for:what:)``.
    func release(_ bytes: Int, for tenant: Tenant) {
        guard bytes > 0 else { return }
        state.withLock { state in Self.update(&state, tenant) { $0.bufferedBytes -= bytes } }
    }

    /// What `tenant` holds now (for tests and diagnostics).
    func usage(of tenant: Tenant) -> (connections: Int, calls: Int, bufferedBytes: Int) {
        state.withLock { state in
            let usage = state.usage[tenant] ?? Usage()
            return (usage.connections, usage.calls, usage.bufferedBytes)
        }
    }

    private static func update(_ state: inout State, _ tenant: Tenant, _ change: (inout Usage) -> Void) {
        var usage = state.usage[tenant] ?? Usage()
        change(&usage)
        state.usage[tenant] = usage.isEmpty ? nil : usage
    }

    private static func exhausted(_ message: String, field: String, value: Int, limit: Int, what: String) -> RPCError {
        RPCError(
            code: .resourceExhausted, message: message, reason: .resourceExhausted, field: field, value: "\(value)",
            expected: "at most \(limit) \(what)")
    }
}

/// The bytes one call holds against its app's buffered-bytes cap, released together when the
/// call's handler returns.
///
/// **Rule: after the handler returned, nothing more is counted.** Work the call started may end
/// later (a page read ahead for it finishing after the call was cancelled): its reservation is
/// refused, or the app would hold those bytes for good, its cap a little smaller with each such
/// call. The budget's lock is taken before the ledger's, never the other way round.
package final class CallBudget: Sendable {
    let ledger: ResourceLedger
    let tenant: Tenant
    private struct State {
        var held = 0
        var closed = false
    }
    private let state = Mutex(State())

    init(ledger: ResourceLedger, tenant: Tenant) {
        self.ledger = ledger
        self.tenant = tenant
    }

    /// Counts `bytes` more, or throws RESOURCE_EXHAUSTED naming `bufferedBytesPerApp`; after the
    /// handler returned, throws CANCELLED and counts nothing.
    func reserve(_ bytes: Int, what: String) throws(RPCError) {
        let (ledger, tenant) = (self.ledger, self.tenant)
        let error = state.withLock { state -> RPCError? in
            if state.closed {
                return RPCError(code: .cancelled, message: "the call has ended: \(what) is not kept", reason: .cancelled)
            }
            if let error = ledger.reserve(bytes, for: tenant, what: what) { return error }
            state.held += bytes
            return nil
        }
        if let error { throw error }
    }

    /// Releases `bytes` of what was reserved.
    func release(_ bytes: Int) {
        let (ledger, tenant) = (self.ledger, self.tenant)
        state.withLock { state in
            let amount = min(bytes, state.held)
            state.held -= amount
            ledger.release(amount, for: tenant)
        }
    }

    /// Releases everything still held, and refuses what comes after.
    func releaseAll() {
        let (ledger, tenant) = (self.ledger, self.tenant)
        state.withLock { state in
            ledger.release(state.held, for: tenant)
            state.held = 0
            state.closed = true
        }
    }
}
