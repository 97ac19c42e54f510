import Foundation
import SalusNotify
import SalusSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A private session bus: `dbus-daemon --session --print-address --nofork`, stopped by ``stop()``.
final class PrivateSessionBus: Sendable {
    let address: String
    private let daemon: ChildProcess

    private init(address: String, daemon: ChildProcess) {
        self.address = address
        self.daemon = daemon
    }

    static func start() throws -> PrivateSessionBus {
        let daemon = try ChildProcess(
            executable: "/usr/bin/dbus-daemon", arguments: ["--session", "--print-address", "--nofork"],
            standardOutput: .pipe, standardError: .inherit)
        // The first line of its output is the address, once it listens.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while let descriptor = daemon.outputDescriptor, read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        if let descriptor = daemon.outputDescriptor { close(descriptor) }
        guard let address = String(bytes: line, encoding: .utf8), !address.isEmpty else {
            daemon.send(SIGTERM)
            daemon.waitUntilExit()
            throw DBusFailure(name: "test", message: "dbus-daemon printed no address")
        }
        return PrivateSessionBus(address: address, daemon: daemon)
    }

    func stop() {
        daemon.send(SIGTERM)
        daemon.waitUntilExit()
    }
}

/// Plays the desktop's notification server on a bus, through libdbus: owns
/// `org.freedesktop.Notifications`, answers Notify with ids from `firstID` on, records each
/// Notify's arguments, and after answering sends `ActionInvoked(id, action)` for the action
/// ``answer`` gives (nil: none), then `NotificationClosed(id, 2)` once an action was sent.
/// A second connection, ``impostor``, can broadcast signals as any other program on the bus.
final class NotificationServerDouble: Sendable {
    struct Call: Sendable {
        var id: UInt32
        var arguments: [DBusValue]

        var appName: String? { arguments[safe: 0]?.string }
        var replacesID: UInt32? { arguments[safe: 1]?.uint32 }
        var icon: String? { arguments[safe: 2]?.string }
        var summary: String? { arguments[safe: 3]?.string }
        var body: String? { arguments[safe: 4]?.string }
        var actions: [String]? { arguments[safe: 5]?.strings }
        var hints: [String: DBusValue]? { arguments[safe: 6]?.variants }
        var expireTimeout: Int32? { arguments[safe: 7]?.int32 }
    }

    private struct Action: Sendable {
        var id: UInt32
        var action: String
    }

    private struct State {
        var calls: [Call] = []
        var closed: [UInt32] = []
        var actions: [Action] = []
        var stopped = false
        var finished = false
    }

    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    let impostor: BusConnection

    /// Starts serving on the bus at `address` (returns once the name is owned).
    init(address: String, firstID: UInt32 = 7, answer: @escaping @Sendable (Call) -> String?) throws {
        let bus = try BusConnection(address: address)
        guard try bus.requestName(DesktopNotifications.name) else {
            throw DBusFailure(name: "test", message: "\(DesktopNotifications.name) is owned already")
        }
        impostor = try BusConnection(address: address)
        let thread = Thread { [shared] in
            var nextID = firstID
            while !shared.state.withLock({ $0.stopped }) {
                for pending in shared.state.withLock({ state in defer { state.actions.removeAll() }; return state.actions }) {
                    _ = try? bus.send(try BusMessage.signal(
                        path: DesktopNotifications.path, interface: DesktopNotifications.name, member: "ActionInvoked",
                        arguments: [.uint32(pending.id), .string(pending.action)]))
                }
                guard bus.readWrite(timeoutMilliseconds: 20) else { break }
                while let message = bus.popMessage() {
                    guard message.kind == .methodCall, message.interface == DesktopNotifications.name else { continue }
                    switch message.member {
                    case "Notify":
                        let id = nextID
                        nextID += 1
                        let call = Call(id: id, arguments: (try? message.arguments()) ?? [])
                        shared.state.withLock { $0.calls.append(call) }
                        _ = try? bus.send(try message.methodReturn([.uint32(id)]))
                        if let action = answer(call) {
                            _ = try? bus.send(try BusMessage.signal(
                                path: DesktopNotifications.path, interface: DesktopNotifications.name, member: "ActionInvoked",
                                arguments: [.uint32(id), .string(action)]))
                            _ = try? bus.send(try BusMessage.signal(
                                path: DesktopNotifications.path, interface: DesktopNotifications.name, member: "NotificationClosed",
                                arguments: [.uint32(id), .uint32(2)]))
                        }
                    case "CloseNotification":
                        if let id = (try? message.arguments())?.first?.uint32 { shared.state.withLock { $0.closed.append(id) } }
                        _ = try? bus.send(try message.methodReturn())
                    default:
                        _ = try? bus.send(try message.errorReply(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "not played here"))
                    }
                }
            }
            shared.state.withLock { $0.finished = true }
        }
        thread.start()
    }

    var calls: [Call] { shared.state.withLock { $0.calls } }
    var closed: [UInt32] { shared.state.withLock { $0.closed } }

    /// Waits up to `timeout` for the `count`th Notify.
    func waitForCalls(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Call] {
        let deadline = ContinuousClock.now + timeout
        while calls.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return calls
    }

    /// Sends `ActionInvoked(id, action)` from the server, as when the person chooses an action.
    func invoke(_ id: UInt32, _ action: String) {
        let pending = Action(id: id, action: action)
        shared.state.withLock { $0.actions.append(pending) }
    }

    /// Broadcasts `ActionInvoked(id, action)` from another connection than the server's.
    func impostorInvokes(_ id: UInt32, _ action: String) throws {
        try impostor.send(BusMessage.signal(
            path: DesktopNotifications.path, interface: DesktopNotifications.name, member: "ActionInvoked",
            arguments: [.uint32(id), .string(action)]))
    }

    func stop() async {
        shared.state.withLock { $0.stopped = true }
        while !shared.state.withLock({ $0.finished }) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
