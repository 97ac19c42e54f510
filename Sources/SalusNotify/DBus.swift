import CDBus
import Foundation

/// A D-Bus failure: libdbus's error name and message, or a reply that was not what was expected.
package struct DBusFailure: Error, CustomStringConvertible, Sendable {
    package var name: String
    package var message: String

    package init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    package var description: String { "\(name): \(message)" }

    /// Takes a set libdbus error, freeing it.
    static func take(_ error: inout DBusError, or fallback: String) -> DBusFailure {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else {
            return DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: fallback)
        }
        return DBusFailure(
            name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { String(cString: $0) } ?? fallback)
    }

    static let noMemory = DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus is out of memory")
}

/// A value of the D-Bus type system, as a call's arguments and a signal's carry them.
package indirect enum DBusValue: Equatable, Sendable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    case string(String)
    case objectPath(String)
    /// An array of values of one type; `element` is its signature ("s", "{sv}").
    case array(element: String, [DBusValue])
    /// One entry of a dictionary (an array of `{KV}`).
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)
    case structure([DBusValue])

    /// A string array (`as`).
    package static func strings(_ values: [String]) -> DBusValue { .array(element: "s", values.map { .string($0) }) }

    /// A dictionary of variants (`a{sv}`), keys sorted.
    package static func variants(_ values: [String: DBusValue]) -> DBusValue {
        .array(element: "{sv}", values.keys.sorted().map { .dictEntry(.string($0), .variant(values[$0]!)) })
    }

    /// The value's type signature.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    package var string: String? { if case .string(let value) = self { value } else { nil } }
    package var uint32: UInt32? { if case .uint32(let value) = self { value } else { nil } }
    package var int32: Int32? { if case .int32(let value) = self { value } else { nil } }
    package var byte: UInt8? { if case .byte(let value) = self { value } else { nil } }
    /// The items of an array.
    package var items: [DBusValue]? { if case .array(_, let items) = self { items } else { nil } }
    /// The strings of a string array.
    package var strings: [String]? { items.map { $0.compactMap(\.string) } }
    /// An `a{sv}` as a dictionary, each variant unwrapped.
    package var variants: [String: DBusValue]? {
        guard let items else { return nil }
        var result: [String: DBusValue] = [:]
        for item in items {
            guard case .dictEntry(.string(let key), .variant(let value)) = item else { return nil }
            result[key] = value
        }
        return result
    }

    package var description: String {
        switch self {
        case .byte(let value): "byte \(value)"
        case .boolean(let value): "\(value)"
        case .int32(let value): "int32 \(value)"
        case .uint32(let value): "uint32 \(value)"
        case .int64(let value): "int64 \(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .objectPath(let value): "path \(value)"
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictEntry(let key, let value): "\(key): \(value)"
        case .variant(let value): "<\(value)>"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// One D-Bus message (libdbus's `DBusMessage`, one reference held).
package final class BusMessage: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over a reference libdbus handed out.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { dbus_message_unref(pointer) }

    package enum Kind: Sendable, Equatable { case methodCall, methodReturn, error, signal, other }

    /// A method call to `destination`'s object `path`.
    package static func methodCall(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) throws(DBusFailure) -> BusMessage {
        guard let pointer = dbus_message_new_method_call(destination, path, interface, member) else { throw .noMemory }
        let message = BusMessage(taking: pointer)
        try message.append(arguments)
        return message
    }

    /// A signal of object `path`, to every connection whose match rules take it.
    package static func signal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws(DBusFailure) -> BusMessage {
        guard let pointer = dbus_message_new_signal(path, interface, member) else { throw .noMemory }
        let message = BusMessage(taking: pointer)
        try message.append(arguments)
        return message
    }

    /// The return of this method call, carrying `arguments`.
    package func methodReturn(_ arguments: [DBusValue] = []) throws(DBusFailure) -> BusMessage {
        guard let pointer = dbus_message_new_method_return(self.pointer) else { throw .noMemory }
        let message = BusMessage(taking: pointer)
        try message.append(arguments)
        return message
    }

    /// An error reply to this method call.
    package func errorReply(name: String, message text: String) throws(DBusFailure) -> BusMessage {
        guard let pointer = dbus_message_new_error(self.pointer, name, text) else { throw .noMemory }
        return BusMessage(taking: pointer)
    }

    package var kind: Kind {
        switch dbus_message_get_type(pointer) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    package var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    package var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    package var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    /// The unique name of the connection that sent it (set by the bus).
    package var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    package var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    package var replySerial: UInt32 { dbus_message_get_reply_serial(pointer) }

    /// The arguments, read whole.
    package func arguments() throws(DBusFailure) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        return try Self.readAll(&iterator)
    }

    // MARK: Writing

    private func append(_ arguments: [DBusValue]) throws(DBusFailure) {
        guard !arguments.isEmpty else { return }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iterator)
        for argument in arguments { try Self.append(argument, to: &iterator) }
    }

    private static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusFailure) {
        var done: dbus_bool_t = 1
        switch value {
        case .byte(var byte): done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_byte, &byte)
        case .boolean(let flag):
            var bool: dbus_bool_t = flag ? 1 : 0
            done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_boolean, &bool)
        case .int32(var number): done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_int32, &number)
        case .uint32(var number): done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_uint32, &number)
        case .int64(var number): done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_int64, &number)
        case .double(var number): done = dbus_message_iter_append_basic(&iterator, salus_dbus_type_double, &number)
        case .string(let text), .objectPath(let text):
            let type = if case .string = value { salus_dbus_type_string } else { salus_dbus_type_object_path }
            // A Swift string is valid UTF-8, as D-Bus requires; a NUL would end it early, so
            // none is passed on.
            let clean = text.contains("\0") ? text.replacingOccurrences(of: "\0", with: "") : text
            done = clean.withCString { characters in
                var pointer: UnsafePointer<CChar>? = characters
                return dbus_message_iter_append_basic(&iterator, type, &pointer)
            }
        case .array(let element, let items):
            try container(salus_dbus_type_array, signature: element, of: items, in: &iterator)
        case .dictEntry(let key, let value):
            try container(salus_dbus_type_dict_entry, signature: nil, of: [key, value], in: &iterator)
        case .variant(let inner):
            try container(salus_dbus_type_variant, signature: inner.signature, of: [inner], in: &iterator)
        case .structure(let fields):
            try container(salus_dbus_type_struct, signature: nil, of: fields, in: &iterator)
        }
        guard done != 0 else { throw .noMemory }
    }

    private static func container(_ type: Int32, signature: String?, of items: [DBusValue], in iterator: inout DBusMessageIter) throws(DBusFailure) {
        var inner = DBusMessageIter()
        let opened = signature.map { dbus_message_iter_open_container(&iterator, type, $0, &inner) }
            ?? dbus_message_iter_open_container(&iterator, type, nil, &inner)
        guard opened != 0 else { throw .noMemory }
        for item in items {
            do {
                try append(item, to: &inner)
            } catch {
                dbus_message_iter_abandon_container(&iterator, &inner)
                throw error
            }
        }
        guard dbus_message_iter_close_container(&iterator, &inner) != 0 else { throw .noMemory }
    }

    // MARK: Reading

    private static func readAll(_ iterator: inout DBusMessageIter) throws(DBusFailure) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            let type = dbus_message_iter_get_arg_type(&iterator)
            if type == salus_dbus_type_invalid { break }
            values.append(try read(type, &iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func read(_ type: Int32, _ iterator: inout DBusMessageIter) throws(DBusFailure) -> DBusValue {
        switch type {
        case salus_dbus_type_byte:
            var value: UInt8 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .byte(value)
        case salus_dbus_type_boolean:
            var value: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .boolean(value != 0)
        case salus_dbus_type_int32:
            var value: Int32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int32(value)
        case salus_dbus_type_uint32:
            var value: UInt32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .uint32(value)
        case salus_dbus_type_int64:
            var value: Int64 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int64(value)
        case salus_dbus_type_double:
            var value: Double = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .double(value)
        case salus_dbus_type_string, salus_dbus_type_object_path:
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iterator, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == salus_dbus_type_string ? .string(text) : .objectPath(text)
        case salus_dbus_type_array:
            guard let signature = dbus_message_iter_get_signature(&iterator) else { throw .noMemory }
            let element = String(String(cString: signature).dropFirst())
            dbus_free(signature)
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .array(element: element, try readAll(&inner))
        case salus_dbus_type_dict_entry:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            let pair = try readAll(&inner)
            guard pair.count == 2 else { throw DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "a dictionary entry of \(pair.count) values") }
            return .dictEntry(pair[0], pair[1])
        case salus_dbus_type_variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            guard let value = try readAll(&inner).first else { throw DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "an empty variant") }
            return .variant(value)
        case salus_dbus_type_struct:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .structure(try readAll(&inner))
        default:
            let code = UnicodeScalar(UInt8(truncatingIfNeeded: type))
            throw DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "an argument of type '\(Character(code))', which is not read here")
        }
    }
}

/// A private connection to a bus through libdbus. Each instance is used from one thread at a
/// time (``DesktopNotifications`` gives its own a thread).
package final class BusConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    /// The connection's unique name on the bus (":1.42").
    package let uniqueName: String

    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    /// Connects to the bus at `address` (a D-Bus address, as DBUS_SESSION_BUS_ADDRESS holds)
    /// and says Hello to it.
    package init(address: String) throws(DBusFailure) {
        _ = Self.threadsReady
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw DBusFailure.take(&error, or: "cannot connect to \(address)")
        }
        // libdbus's default for a bus is to exit the process when it goes away.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0, let name = dbus_bus_get_unique_name(connection) else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusFailure.take(&error, or: "the bus at \(address) did not answer Hello")
        }
        self.connection = connection
        self.uniqueName = String(cString: name)
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// The socket, to poll for input.
    package var fileDescriptor: Int32? {
        var descriptor: Int32 = -1
        return dbus_connection_get_unix_fd(connection, &descriptor) != 0 ? descriptor : nil
    }

    package var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// Asks the bus for the signals `rule` describes (waits for the bus's answer).
    package func addMatch(_ rule: String) throws(DBusFailure) {
        var error = DBusError()
        dbus_error_init(&error)
        dbus_bus_add_match(connection, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw DBusFailure.take(&error, or: "AddMatch \(rule)") }
    }

    /// Asks for the well-known `name`; true when this connection now owns it.
    package func requestName(_ name: String) throws(DBusFailure) -> Bool {
        var error = DBusError()
        dbus_error_init(&error)
        let result = dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        if dbus_error_is_set(&error) != 0 { throw DBusFailure.take(&error, or: "RequestName \(name)") }
        return result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
    }

    /// Queues `message` and writes it out; returns its serial (a reply names it).
    @discardableResult
    package func send(_ message: BusMessage) throws(DBusFailure) -> UInt32 {
        var serial: dbus_uint32_t = 0
        guard dbus_connection_send(connection, message.pointer, &serial) != 0 else { throw .noMemory }
        dbus_connection_flush(connection)
        return serial
    }

    /// Sends a method call and waits for its reply, at most `timeoutMilliseconds`.
    package func call(_ message: BusMessage, timeoutMilliseconds: Int32 = 5_000) throws(DBusFailure) -> BusMessage {
        var error = DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message.pointer, timeoutMilliseconds, &error) else {
            throw DBusFailure.take(&error, or: "no reply to \(message.member ?? "a call")")
        }
        return BusMessage(taking: reply)
    }

    /// Reads what the socket holds and writes what is queued, waiting at most
    /// `timeoutMilliseconds` (0: not at all); false once the connection is closed.
    package func readWrite(timeoutMilliseconds: Int32) -> Bool {
        dbus_connection_read_write(connection, timeoutMilliseconds) != 0
    }

    /// The next message read, if any.
    package func popMessage() -> BusMessage? {
        dbus_connection_pop_message(connection).map { BusMessage(taking: $0) }
    }
}
