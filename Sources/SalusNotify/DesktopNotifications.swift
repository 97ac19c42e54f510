import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The desktop's notification server (`org.freedesktop.Notifications` on the session bus,
/// the Desktop Notifications Specification 1.2), through libdbus.
///
/// One thread owns the bus connection: it sends what ``notify(_:onShown:)`` and ``close(_:)``
/// queue, and reads replies and signals, waiting in poll(2) on the bus socket and a wake-up
/// pipe. Only signals sent by the connection that answered Notify are taken: any program on
/// the bus can broadcast an `ActionInvoked`, and a sandboxed app must not answer its own request.
package final class DesktopNotifications: Sendable {
    /// One notification, as Notify takes it.
    package struct Notification: Equatable, Sendable {
        package var appName: String
        package var replacesID: UInt32 = 0
        package var icon: String
        package var summary: String
        package var body: String
        /// Pairs of action key and label, flattened as the specification has them.
        package var actions: [String]
        package var hints: [String: DBusValue]
        /// Milliseconds; 0: never expires, -1: the server decides.
        package var expireTimeout: Int32

        package init(
            appName: String, replacesID: UInt32 = 0, icon: String, summary: String, body: String, actions: [String],
            hints: [String: DBusValue], expireTimeout: Int32
        ) {
            self.appName = appName
            self.replacesID = replacesID
            self.icon = icon
            self.summary = summary
            self.body = body
            self.actions = actions
            self.hints = hints
            self.expireTimeout = expireTimeout
        }

        /// Notify's arguments: `susssasa{sv}i`.
        package var arguments: [DBusValue] {
            [.string(appName), .uint32(replacesID), .string(icon), .string(summary), .string(body), .strings(actions),
             .variants(hints), .int32(expireTimeout)]
        }
    }

    /// What the notification server said.
    package enum Event: Equatable, Sendable {
        /// The person chose an action (`default` for a click on the notification itself).
        case actionInvoked(id: UInt32, action: String)
        /// The notification is gone: 1 expired, 2 dismissed, 3 closed by a call, 4 other.
        case closed(id: UInt32, reason: UInt32)
    }

    package static let name = "org.freedesktop.Notifications"
    package static let path = "/org/freedesktop/Notifications"

    /// The server's events, in order; finished when the bus connection ends.
    package let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    private struct Outgoing {
        var message: BusMessage
        var reply: Reply?
    }

    private struct Reply {
        var continuation: CheckedContinuation<UInt32, any Error>
        var onShown: @Sendable (UInt32) -> Void
        var deadline: ContinuousClock.Instant = .now
    }

    private struct State {
        var outgoing: [Outgoing] = []
        var stopped = false
        var ended = false
    }

    private let state = Mutex(State())
    private let bus: BusConnection
    /// The wake-up pipe: [read end, write end].
    private let wake: (Int32, Int32)
    /// How long Notify may take to be answered.
    private let replyTimeout: Duration

    /// Connects to the session bus at `address` and subscribes to the notification server's
    /// signals. Throws when there is no bus there.
    package init(address: String, replyTimeout: Duration = .seconds(25)) throws {
        let bus = try BusConnection(address: address)
        try bus.addMatch("type='signal',interface='\(Self.name)',path='\(Self.path)'")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.bus = bus
        self.wake = (ends[0], ends[1])
        self.replyTimeout = replyTimeout
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
        let thread = Thread { [self] in loop() }
        thread.name = "salus-notify D-Bus"
        thread.start()
    }

    deinit {
        Glibc.close(wake.0)
        Glibc.close(wake.1)
    }

    /// Shows `notification`; returns its id. `onShown` gets the id on the bus thread before
    /// any later signal is read, so an action invoked at once is never taken for an unknown id.
    package func notify(_ notification: Notification, onShown: @escaping @Sendable (UInt32) -> Void = { _ in }) async throws -> UInt32 {
        let message = try BusMessage.methodCall(
            destination: Self.name, path: Self.path, interface: Self.name, member: "Notify", arguments: notification.arguments)
        return try await withCheckedThrowingContinuation { continuation in
            let queued = state.withLock { state -> Bool in
                guard !state.ended else { return false }
                state.outgoing.append(Outgoing(message: message, reply: Reply(continuation: continuation, onShown: onShown)))
                return true
            }
            if queued {
                wakeUp()
            } else {
                continuation.resume(throwing: DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the session bus connection has ended"))
            }
        }
    }

    /// Asks the server to close notification `id` (CloseNotification), without waiting.
    package func close(_ id: UInt32) {
        guard let message = try? BusMessage.methodCall(
            destination: Self.name, path: Self.path, interface: Self.name, member: "CloseNotification", arguments: [.uint32(id)])
        else { return }
        state.withLock { if !$0.ended { $0.outgoing.append(Outgoing(message: message, reply: nil)) } }
        wakeUp()
    }

    /// Whether the bus connection has ended (the bus went away, or ``shutdown()``).
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// Ends the connection; calls waiting fail, ``events`` finishes.
    package func shutdown() {
        state.withLock { $0.stopped = true }
        wakeUp()
    }

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.1, &byte, 1)
    }

    // MARK: The bus thread

    private func loop() {
        var replies: [UInt32: Reply] = [:]
        /// The unique name of the server that answered Notify: its signals only are taken.
        var server: String?
        var failure = "the session bus closed the connection"
        running: while true {
            let (outgoing, stopped) = state.withLock { state in
                defer { state.outgoing.removeAll() }
                return (state.outgoing, state.stopped)
            }
            if stopped {
                failure = "the notifier stopped"
                break
            }
            for item in outgoing {
                do {
                    let serial = try bus.send(item.message)
                    if var reply = item.reply {
                        reply.deadline = .now + replyTimeout
                        replies[serial] = reply
                    }
                } catch {
                    item.reply?.continuation.resume(throwing: error)
                }
            }
            guard bus.readWrite(timeoutMilliseconds: 0) else { break running }
            while let message = bus.popMessage() {
                switch message.kind {
                case .methodReturn, .error:
                    guard let reply = replies.removeValue(forKey: message.replySerial) else { continue }
                    if message.kind == .error {
                        let text = (try? message.arguments())?.first?.string ?? ""
                        reply.continuation.resume(throwing: DBusFailure(name: message.errorName ?? "org.freedesktop.DBus.Error.Failed", message: text))
                    } else if let id = (try? message.arguments())?.first?.uint32 {
                        server = message.sender
                        reply.onShown(id)
                        reply.continuation.resume(returning: id)
                    } else {
                        reply.continuation.resume(throwing: DBusFailure(
                            name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Notify was answered without a notification id"))
                    }
                case .signal:
                    if message.interface == "org.freedesktop.DBus.Local" && message.member == "Disconnected" { break running }
                    guard message.interface == Self.name, message.path == Self.path, let sender = message.sender, sender == server,
                          let arguments = try? message.arguments(), arguments.count == 2, let id = arguments[0].uint32
                    else { continue }
                    if message.member == "ActionInvoked", let action = arguments[1].string {
                        eventSink.yield(.actionInvoked(id: id, action: action))
                    } else if message.member == "NotificationClosed", let reason = arguments[1].uint32 {
                        eventSink.yield(.closed(id: id, reason: reason))
                    }
                default:
                    continue
                }
            }
            let now = ContinuousClock.now
            for (serial, reply) in replies where reply.deadline <= now {
                replies[serial] = nil
                reply.continuation.resume(throwing: DBusFailure(
                    name: "org.freedesktop.DBus.Error.NoReply", message: "the notification server did not answer Notify within \(replyTimeout)"))
            }
            guard let descriptor = bus.fileDescriptor else { break running }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.0, events: Int16(POLLIN), revents: 0)]
            let timeout: Int32 = replies.isEmpty ? -1 : 1_000
            if poll(&descriptors, 2, timeout) > 0, descriptors[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while read(wake.0, &drained, drained.count) > 0 {}
            }
        }
        let left = state.withLock { state in
            state.ended = true
            defer { state.outgoing.removeAll() }
            return state.outgoing
        }
        let ended = DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: failure)
        for reply in replies.values { reply.continuation.resume(throwing: ended) }
        for item in left { item.reply?.continuation.resume(throwing: ended) }
        eventSink.finish()
    }
}
