import Foundation
import Logging
import SalusSpawn

/// Opens `salusctl consent watch` in a terminal, for a notification's Review action.
package enum ReviewTerminal {
    /// The command that runs `watch` (salusctl's arguments) in a terminal: `xdg-terminal-exec`
    /// when it is on `path` (the freedesktop.org proposal for a default terminal), else Debian's
    /// `x-terminal-emulator -e`; nil without either.
    package static func command(_ watch: [String], path: String) -> [String]? {
        if let exec = find("xdg-terminal-exec", path: path) { return [exec] + watch }
        if let emulator = find("x-terminal-emulator", path: path) { return [emulator, "-e"] + watch }
        return nil
    }

    /// salusctl's arguments for the review: `salusctl consent watch`, with the admin socket
    /// when one was given. `salusctl` is the one beside this executable when there is one.
    package static func watchCommand(adminSocket: String?, executable: String?, path: String) -> [String] {
        let beside = executable.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("salusctl").path }
        let salusctl = beside.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
            ?? find("salusctl", path: path) ?? "salusctl"
        return [salusctl, "consent", "watch"] + (adminSocket.map { ["--admin-socket", $0] } ?? [])
    }

    /// Starts `command` without waiting for it (a thread reaps it).
    package static func open(_ command: [String]?, logger: Logger) {
        guard let command, let program = command.first else {
            logger.warning("cannot open the review: neither xdg-terminal-exec nor x-terminal-emulator is installed; run salusctl consent watch")
            return
        }
        do {
            let child = try ChildProcess(executable: program, arguments: Array(command.dropFirst()), standardInput: .null)
            Thread.detachNewThread { child.waitUntilExit() }
        } catch {
            logger.warning("cannot open the review", metadata: ["error": "\(error)"])
        }
    }

    static func find(_ name: String, path: String) -> String? {
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
