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
/// socket in `SALUS_SOCKET` first and the admin socket in `SALUS_ADMIN_SOCKET` first. An
/// installed salusd loads the plugins in `<prefix>/lib/salus/plugins`, found from its own path
/// (`<prefix>/bin/salusd`), so that a copy installed under any prefix needs no flag.
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

    /// The path of the running executable with symbolic links resolved (`/proc/self/exe`), or
    /// nil when it cannot be read.
    package static func currentExecutable() -> String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), !path.isEmpty else {
            return nil
        }
        return path
    }

    /// The prefix an executable was installed under: the folder above the folder that holds it
    /// (`/usr/local` for `/usr/local/bin/salusd`).
    package static func installPrefix(executable: String) -> String {
        let bin = (executable as NSString).deletingLastPathComponent
        let prefix = (bin as NSString).deletingLastPathComponent
        return prefix.isEmpty ? "/" : prefix
    }

    /// Where an installed executable's bundled plugins are: `<prefix>/lib/salus/plugins`.
    package static func installedPluginsDirectory(executable: String) -> String {
        (installPrefix(executable: executable) as NSString).appendingPathComponent("lib/salus/plugins")
    }

    /// The plugin folders salusd loads when no `--plugins-dir` is given: the installed plugins
    /// folder beside `executable` when it exists, else none (a daemon run from a build folder
    /// is given its plugins with `--plugins-dir`, as `make run` does).
    package static func pluginDirectories(
        executable: String?,
        isDirectory: (String) -> Bool = { path in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
        }
    ) -> [String] {
        guard let executable else { return [] }
        let installed = installedPluginsDirectory(executable: executable)
        return isDirectory(installed) ? [installed] : []
    }
}
