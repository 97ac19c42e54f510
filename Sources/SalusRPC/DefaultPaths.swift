#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// Where Salus keeps its sockets and data when no flag or variable says otherwise.
///
/// Sockets live in `$XDG_RUNTIME_DIR/salus/` (else `/tmp/salus-<uid>/`), data in
/// `$XDG_DATA_HOME/salus/` (else `$HOME/.local/share/salus/`). Clients look for the app
/// socket in `SALUS_SOCKET` first and the admin socket in `SALUS_ADMIN_SOCKET` first.
package enum DefaultPaths {
    /// The folder of the sockets.
    package static func runtimeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/salus"
        }
        return "/tmp/salus-\(getuid())"
    }

    /// The folder of the database and other data.
    package static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return data + "/salus"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/salus-home-\(getuid())"
        return home + "/.local/share/salus"
    }

    /// The app socket: `SALUS_SOCKET`, else `<runtime>/salus.sock`.
    package static func appSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let socket = environment["SALUS_SOCKET"], !socket.isEmpty { return socket }
        return runtimeDirectory(environment: environment) + "/salus.sock"
    }

    /// The admin socket: `SALUS_ADMIN_SOCKET`, else `<runtime>/admin.sock`.
    package static func adminSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let socket = environment["SALUS_ADMIN_SOCKET"], !socket.isEmpty { return socket }
        return runtimeDirectory(environment: environment) + "/admin.sock"
    }
}
