#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import SalusSpawn

/// `salusctl launch --app ID [--sandbox] -- COMMAND…`: runs an app with its own socket, so that
/// the daemon knows which app is calling from the socket, not from what the app says.
struct Launch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command as a registered app, through the app's own socket.",
        discussion: """
            Asks the daemon (admin socket) for the app's socket, then runs COMMAND in place of \
            salusctl with SALUS_SOCKET set to it; every call through that socket is the app. \
            With --sandbox, COMMAND runs in a bubblewrap sandbox (bwrap) that holds the system's \
            folders read-only, an empty /tmp and the app's socket, and nothing else of yours: \
            not the data folder, the admin socket, other apps' sockets or your home, unless \
            --bind or --ro-bind adds them. \
            Example: salusctl launch --app org.example.sleepdiary --sandbox -- sleepdiary demo
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The registered app id the command runs as.", valueName: "app-id"))
    var app: String

    @Flag(name: .long, help: "Run the command in a bubblewrap sandbox that holds only the app's socket of Salus.")
    var sandbox = false

    @Option(name: .long, help: ArgumentHelp("With --sandbox: a file or folder the app may read and write, at the same path.", valueName: "path"))
    var bind: [String] = []

    @Option(name: .customLong("ro-bind"), help: ArgumentHelp("With --sandbox: a file or folder the app may read, at the same path.", valueName: "path"))
    var readOnlyBind: [String] = []

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "command"))
    var command: [String] = []

    func run() async throws {
        var arguments = command
        if arguments.first == "--" { arguments.removeFirst() }
        guard let program = arguments.first else {
            throw CommandFailure("COMMAND: missing; expected the app's command after --, as in salusctl launch --app \(app) -- sleepdiary demo")
        }
        if !sandbox, let option = !bind.isEmpty ? "--bind" : !readOnlyBind.isEmpty ? "--ro-bind" : nil {
            throw CommandFailure("\(option): given without --sandbox; it says what the sandbox holds")
        }
        let socketPath = try await connection.withAdmin { try await $0.appEndpoint(app) }
        setenv("SALUS_APP_ID", app, 1)
        guard sandbox else {
            setenv("SALUS_SOCKET", socketPath, 1)
            let failure = Exec.replaceProcess(program: program, arguments: arguments)
            throw CommandFailure("cannot run \(program): \(String(cString: strerror(failure)))")
        }
        guard let bwrap = Self.executable("bwrap") else {
            throw CommandFailure("--sandbox: bwrap not found in PATH; install bubblewrap (Debian: apt install bubblewrap)")
        }
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        for (option, path) in bind.map({ ("--bind", $0) }) + readOnlyBind.map({ ("--ro-bind", $0) }) where access(path, F_OK) != 0 {
            throw CommandFailure("\(option) \(path): no such file or folder")
        }
        let resolved = program.contains("/") ? absolute(program) : (Self.executable(program) ?? program)
        let inside = SandboxLayout(
            socket: socketPath, runtimeDirectory: "/run/user/\(getuid())", program: resolved,
            binds: bind.map(absolute), readOnlyBinds: readOnlyBind.map(absolute),
            workingDirectory: FileManager.default.currentDirectoryPath)
        unsetenv("SALUS_ADMIN_SOCKET")
        setenv("SALUS_SOCKET", inside.socketInside, 1)
        setenv("XDG_RUNTIME_DIR", inside.runtimeDirectory, 1)
        let failure = Exec.replaceProcess(program: bwrap, arguments: ["bwrap"] + inside.arguments + ["--", resolved] + arguments.dropFirst())
        throw CommandFailure("cannot run \(bwrap): \(String(cString: strerror(failure)))")
    }

    /// `name` found in PATH, as execvp would find it.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// What `salusctl launch --sandbox` puts in the app's sandbox, as bwrap's arguments.
///
/// Rules, each with its reason:
/// - **Only the app's socket of Salus**, bound read-only (a socket is still connectable) at
///   `$XDG_RUNTIME_DIR/salus/salus.sock` inside, the default app socket, which `SALUS_SOCKET`
///   names too. Why: the identity of a per-app socket holds only where the app cannot reach
///   another app's socket, the admin socket or the database files.
/// - **The system read-only, the rest empty**: /usr, /etc and /opt read-only, the host's
///   /bin, /lib… links or folders, a fresh /proc, /dev, /tmp and /run. Nothing of the owner's
///   home or runtime folder, unless the owner binds it.
/// - **Its own sessions**: a pid, IPC and UTS namespace of its own and a new session (so that
///   it cannot push input into the owner's terminal); the sandbox ends with salusctl's process.
struct SandboxLayout {
    var socket: String
    var runtimeDirectory: String
    var program: String
    var binds: [String]
    var readOnlyBinds: [String]
    var workingDirectory: String

    var socketInside: String { runtimeDirectory + "/salus/salus.sock" }

    var arguments: [String] {
        var arguments = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--new-session"]
        for folder in ["/usr", "/etc", "/opt"] { arguments += ["--ro-bind-try", folder, folder] }
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: top) {
                arguments += ["--symlink", target, top]
            } else if access(top, F_OK) == 0 {
                arguments += ["--ro-bind", top, top]
            }
        }
        arguments += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run", "--dir", runtimeDirectory + "/salus"]
        arguments += ["--ro-bind", socket, socketInside]
        let system = ["/usr/", "/etc/", "/opt/", "/bin/", "/sbin/", "/lib"]
        if program.hasPrefix("/"), !system.contains(where: program.hasPrefix), !readOnlyBinds.contains(program), !binds.contains(program) {
            arguments += ["--ro-bind", program, program]
        }
        for path in readOnlyBinds { arguments += ["--ro-bind", path, path] }
        for path in binds { arguments += ["--bind", path, path] }
        let reachable = (binds + readOnlyBinds).contains { workingDirectory == $0 || workingDirectory.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        arguments += ["--chdir", reachable ? workingDirectory : "/"]
        return arguments
    }
}
