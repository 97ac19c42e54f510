import ArgumentParser
import Foundation
import SalusRPC

/// The systemd user units that start salusd on the first connection to either socket.
///
/// One socket unit holds both sockets (a unit's `FileDescriptorName=` would name both alike, so
/// salusd tells them apart by the file each is bound to); the service is started by it, never
/// at login on its own.
enum SystemdUnits {
    /// `salusd.socket`: the app socket and the admin socket in `%t/salus/` (the runtime folder,
    /// `$XDG_RUNTIME_DIR`), both owner-only.
    static let socket = """
        [Unit]
        Description=Salus health-data daemon sockets
        Documentation=man:salusd(1) man:salusctl(1)

        [Socket]
        ListenStream=%t/salus/salus.sock
        ListenStream=%t/salus/admin.sock
        SocketMode=0600
        DirectoryMode=0700
        RemoveOnStop=yes

        [Install]
        WantedBy=sockets.target

        """

    /// `salusd.service` for the salusd installed under `prefix`: started by the socket, ready
    /// when salusd says so (`Type=notify`), writing only its data and runtime folders.
    static func service(prefix: String) -> String {
        let executable = (prefix as NSString).appendingPathComponent("bin/salusd")
        return """
            [Unit]
            Description=Salus health-data daemon
            Documentation=man:salusd(1)
            Requires=salusd.socket
            After=salusd.socket

            [Service]
            Type=notify
            ExecStart=\(executable) --data-dir %h/.local/share/salus
            # salusd drains calls in flight for up to 10 s (--drain-timeout) after SIGTERM.
            TimeoutStopSec=30
            ProtectSystem=strict
            PrivateTmp=yes
            NoNewPrivileges=yes
            ReadWritePaths=%h/.local/share/salus %t/salus

            [Install]
            Also=salusd.socket

            """
    }
}

struct Setup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install the systemd user units and start salusd by socket activation.",
        discussion: """
            Writes salusd.socket and salusd.service (ExecStart: the salusd beside this salusctl) \
            into ~/.config/systemd/user, then runs systemctl --user daemon-reload and \
            systemctl --user enable --now salusd.socket. Without a reachable user manager it \
            says what to run instead.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The prefix salusd is installed under (default: the one this salusctl is in).", valueName: "dir"))
    var prefix: String?

    @Option(name: .long, help: ArgumentHelp("Where to write the units (default: $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user).", valueName: "dir"))
    var unitsDir: String?

    @Flag(name: .long, help: "Write the units only; do not run systemctl.")
    var noEnable = false

    @Flag(name: .long, help: "Print salusd.socket and exit.")
    var printSocketUnit = false

    @Flag(name: .long, help: "Print salusd.service and exit.")
    var printServiceUnit = false

    func run() async throws {
        let prefix = try resolvedPrefix()
        if printSocketUnit || printServiceUnit {
            if printSocketUnit { print(SystemdUnits.socket, terminator: "") }
            if printServiceUnit { print(SystemdUnits.service(prefix: prefix), terminator: "") }
            return
        }
        let salusd = (prefix as NSString).appendingPathComponent("bin/salusd")
        guard FileManager.default.isExecutableFile(atPath: salusd) else {
            throw CommandFailure("--prefix: no salusd at \(salusd); install with `make install PREFIX=…` or give the prefix salusd is installed under")
        }
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let folder = unitsDir ?? ((environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/systemd/user")
        let files = [("salusd.socket", SystemdUnits.socket), ("salusd.service", SystemdUnits.service(prefix: prefix))]
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, text) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name), options: .atomic)
                print("wrote \(folder)/\(name)")
            }
            // ReadWritePaths= needs the data folder to exist before the service starts.
            try FileManager.default.createDirectory(
                atPath: home + "/.local/share/salus", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure("cannot write the units into \(folder): \(error.localizedDescription)")
        }
        let steps = [["daemon-reload"], ["enable", "--now", "salusd.socket"]]
        let manual = steps.map { "  systemctl --user " + $0.joined(separator: " ") }.joined(separator: "\n")
        if noEnable {
            print("to start salusd on the first connection, run:\n\(manual)")
            return
        }
        // show-environment succeeds only when a user manager answers.
        guard Self.systemctl(["show-environment"]) == 0 else {
            print("no systemd user manager is reachable (no user session?); once there is one, run:\n\(manual)")
            return
        }
        for step in steps {
            guard let status = Self.systemctl(step), status == 0 else {
                throw CommandFailure("systemctl --user \(step.joined(separator: " ")) failed; run it to see why")
            }
        }
        print("salusd.socket is enabled and listening; salusd starts on the first connection (salusctl status)")
    }

    /// `--prefix`, else the prefix of the running salusctl (`<prefix>/bin/salusctl`).
    private func resolvedPrefix() throws -> String {
        if let prefix {
            guard prefix.hasPrefix("/") else { throw CommandFailure("--prefix: '\(prefix)' is not an absolute path") }
            return prefix
        }
        guard let executable = DefaultPaths.currentExecutable() else {
            throw CommandFailure("cannot tell where salusctl is installed; give --prefix")
        }
        return DefaultPaths.installPrefix(executable: executable)
    }

    /// Runs `systemctl --user ARGUMENTS` quietly; its exit status, or nil when there is no
    /// systemctl.
    private static func systemctl(_ arguments: [String]) -> Int32? {
        guard let systemctl = ["/usr/bin/systemctl", "/bin/systemctl"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments = ["--user"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return nil }
        _ = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
