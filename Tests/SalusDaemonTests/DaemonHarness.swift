import Foundation
import SalusSpawn
import SalusTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `salusd` process in a fresh temporary directory, for end-to-end tests.
///
/// ```swift
/// let daemon = try await DaemonHarness.start()
/// // ... connect to daemon.socketPath ...
/// #expect(try await daemon.stop() == 0)
/// ```
///
/// The directory holds `data/` (the `--data-dir`) and the two sockets; it is removed, and a
/// daemon still running is killed, when the harness is released. The daemon's stdout and stderr
/// are captured together in ``output`` by a background thread that always drains the pipe, so
/// the daemon never blocks on a full pipe however much it logs.
final class DaemonHarness {
    /// The temporary directory that holds the data directory and the sockets.
    let directory: URL
    /// The app socket (`--socket`).
    let socketPath: String
    /// The admin socket (`--admin-socket`).
    let adminSocketPath: String
    /// The data directory (`--data-dir`).
    let dataDirectory: URL
    /// The running daemon.
    let process: ChildProcess

    private let capture: OutputCapture

    /// Everything the daemon has written to stdout and stderr so far.
    var output: String { capture.text }

    private init(directory: URL, socketPath: String, adminSocketPath: String, dataDirectory: URL,
                 process: ChildProcess, capture: OutputCapture) {
        self.directory = directory
        self.socketPath = socketPath
        self.adminSocketPath = adminSocketPath
        self.dataDirectory = dataDirectory
        self.process = process
        self.capture = capture
    }

    deinit {
        if process.isRunning {
            process.send(SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Starting and stopping

    /// Starts `salusd --socket … --admin-socket … --data-dir …` followed by `arguments`, with
    /// `environment` added to this process's environment, and returns once both sockets accept
    /// connections and the daemon has printed its ready banner.
    ///
    /// Throws ``HarnessError`` with the daemon's output when the binary is missing, when the
    /// daemon exits first, or when the socket does not accept within 20 seconds (the daemon is
    /// killed then).
    ///
    /// With `defaultPaths` the daemon gets no path flags: `XDG_RUNTIME_DIR` and `XDG_DATA_HOME`
    /// point into the temporary folder, and the daemon must find its places from them.
    ///
    /// With `bundledPlugins` the daemon gets `--plugins-dir` of a folder in the temporary folder
    /// holding the twelve bundled plugins (links to the built libraries). `dataDirectory` reuses
    /// another harness's data (a restart); that harness must outlive this one.
    static func start(
        arguments: [String] = [],
        environment: [String: String] = [:],
        defaultPaths: Bool = false,
        bundledPlugins: Bool = false
    ) async throws -> DaemonHarness {
        let executable = binary("salusd")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw HarnessError(
                "salusd not found at \(executable.path): build it (swift build) or set SALUS_BIN_DIR to the folder that holds it"
            )
        }
        let directory = try makeTemporaryDirectory(prefix: "salusd")
        let dataDirectory: URL
        let socketPath: String
        let adminSocketPath: String
        var environment = environment
        let pathArguments: [String]
        if defaultPaths {
            dataDirectory = directory.appendingPathComponent("xdg-data/salus", isDirectory: true)
            socketPath = directory.appendingPathComponent("xdg-runtime/salus/salus.sock").path
            adminSocketPath = directory.appendingPathComponent("xdg-runtime/salus/admin.sock").path
            environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("xdg-runtime").path
            environment["XDG_DATA_HOME"] = directory.appendingPathComponent("xdg-data").path
            pathArguments = []
        } else {
            dataDirectory = directory.appendingPathComponent("data", isDirectory: true)
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            socketPath = directory.appendingPathComponent("app.sock").path
            adminSocketPath = directory.appendingPathComponent("admin.sock").path
            pathArguments = ["--socket", socketPath, "--admin-socket", adminSocketPath, "--data-dir", dataDirectory.path]
        }

        var pluginArguments: [String] = []
        if bundledPlugins {
            let plugins = directory.appendingPathComponent("plugins", isDirectory: true)
            try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
            for name in bundled {
                let library = "lib\(name).so"
                try FileManager.default.createSymbolicLink(
                    at: plugins.appendingPathComponent(library), withDestinationURL: binDirectory.appendingPathComponent(library))
            }
            pluginArguments = ["--plugins-dir", plugins.path]
        }

        // The daemon keeps this process's standard input, as it did under Foundation's `Process`.
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable: executable.path, arguments: pathArguments + pluginArguments + arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, directory: directory.path,
                standardInput: .inherit, standardOutput: .pipe, standardError: .output)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw HarnessError("\(error)")
        }
        let capture = OutputCapture(draining: process)

        let harness = DaemonHarness(
            directory: directory, socketPath: socketPath, adminSocketPath: adminSocketPath,
            dataDirectory: dataDirectory, process: process, capture: capture
        )
        let deadline = ContinuousClock.now + .seconds(20)
        // Ready: both sockets accept and the daemon has printed its banner.
        while !(canConnect(toUnixSocket: socketPath) && canConnect(toUnixSocket: adminSocketPath) && harness.output.contains(" ready")) {
            if !process.isRunning {
                capture.waitForEnd()
                throw HarnessError(
                    "salusd exited with \(harness.describeTermination()) before accepting connections; its output:\n\(harness.output)"
                )
            }
            if ContinuousClock.now >= deadline {
                process.send(SIGKILL)
                process.waitUntilExit()
                capture.waitForEnd()
                throw HarnessError(
                    "salusd did not accept connections on \(socketPath) within 20 s; its output:\n\(harness.output)"
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return harness
    }

    /// Sends `signal` and waits up to 20 seconds for the daemon to exit; returns its exit status
    /// (128 + the signal number when a signal ended it, as shells report it).
    ///
    /// When the daemon has not exited in time it is killed with SIGKILL and ``HarnessError`` is
    /// thrown with its output. Calling it again after the daemon has exited just returns the status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) async throws -> Int32 {
        if process.isRunning {
            process.send(signal)
            let deadline = ContinuousClock.now + .seconds(20)
            while process.isRunning {
                if ContinuousClock.now >= deadline {
                    process.send(SIGKILL)
                    process.waitUntilExit()
                    capture.waitForEnd()
                    throw HarnessError(
                        "salusd did not exit within 20 s of signal \(signal) and was killed; its output:\n\(output)"
                    )
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let ended = process.waitUntilExit()
        capture.waitForEnd()
        return ended.shellStatus
    }

    private func describeTermination() -> String {
        process.waitUntilExit().description
    }

    /// The bundled plugins: `lib<name>.so` in ``binDirectory``.
    static let bundled = [
        "SalusCore", "SalusSleep", "SalusReproductive", "SalusMobility", "SalusVision", "SalusWheelchair",
        "SalusVitals", "SalusNutrition", "SalusHearing", "SalusSymptoms", "SalusLab", "SalusMindfulness", "SalusClinical",
    ]

    // MARK: - Where the built products are

    /// The folder that holds the built products (`salusd`, `salusctl`, ...): `$SALUS_BIN_DIR` when
    /// set; else the folder of this test process's executable when `salusd` is beside it (the
    /// test bundle is built into the same `.build/debug`); else `<package root>/.build/debug`.
    static var binDirectory: URL {
        if let configured = ProcessInfo.processInfo.environment["SALUS_BIN_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("salusd").path) {
                return folder
            }
        }
        return packageRoot.appendingPathComponent(".build/debug", isDirectory: true)
    }

    /// The built product `name` in ``binDirectory``.
    static func binary(_ name: String) -> URL {
        binDirectory.appendingPathComponent(name)
    }

    /// The package root: this file is `<root>/Tests/SalusDaemonTests/DaemonHarness.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: - Helpers for tests

    /// Whether a Unix stream socket at `path` accepts a connection now.
    static func canConnect(toUnixSocket path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// A new, empty directory readable only by this user (mode 0700), with a short path so that
    /// socket paths inside it stay within the 107 bytes of `sun_path`.
    static func makeTemporaryDirectory(prefix: String) throws -> URL {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty || base.utf8.count > 60 { base = "/tmp" }
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast())
        template += Array("\(prefix)-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HarnessError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Runs `executable` with `arguments` to its end (at most `timeout`) and returns its exit
    /// status and its stdout and stderr together. Throws ``HarnessError`` on a time-out, after
    /// killing it.
    static func run(
        _ executable: URL,
        _ arguments: [String] = [],
        in directory: URL? = nil,
        environment: [String: String] = [:],
        timeout: Duration = .seconds(300)
    ) async throws -> CommandResult {
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, directory: directory?.path,
            standardOutput: .pipe, standardError: .output)
        let capture = OutputCapture(draining: process)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                process.send(SIGKILL)
                process.waitUntilExit()
                capture.waitForEnd()
                throw HarnessError(
                    "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout); its output:\n\(capture.text)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let ended = process.waitUntilExit()
        capture.waitForEnd()
        return CommandResult(status: ended.shellStatus, output: capture.text)
    }

    /// Starts `executable` with `arguments`, its stdout and stderr appended to `log` (or
    /// replacing it with `truncate`), with no descriptor of this process but the three standard
    /// ones (``ChildProcess``); for programs that leave children holding what they inherited
    /// (`pg_ctl start` leaves the server running).
    static func spawn(_ executable: URL, _ arguments: [String], log: String, truncate: Bool = false) throws -> ChildProcess {
        try ChildProcess(
            executable: executable.path, arguments: arguments,
            standardOutput: .file(log, truncate: truncate), standardError: .output)
    }

    /// The executable `name` from `PATH` (then `/usr/bin`, `/usr/local/bin`), or nil.
    static func findExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        for folder in folders where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// How a command run by ``DaemonHarness/run(_:_:in:environment:timeout:)`` ended.
struct CommandResult: Sendable {
    /// The exit status; 128 + the signal number when a signal ended it.
    var status: Int32
    /// Its stdout and stderr together.
    var output: String
}

/// A failure of the harness itself, with what the daemon or command printed.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects a child's stdout and stderr through one pipe, read on a dedicated thread until
/// end of file, so that the child never blocks on a full pipe.
private final class OutputCapture: Sendable {
    private let buffer = Mutex(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the reading thread over `process`'s output pipe, which it closes at the end.
    init(draining process: ChildProcess) {
        guard let descriptor = process.outputDescriptor else {
            finished.signal()
            return
        }
        let thread = Thread { [self] in
            var chunk: [UInt8] = []
            while ChildProcess.read(descriptor, into: &chunk) {
                buffer.withLock { $0.append(contentsOf: chunk) }
                chunk.removeAll(keepingCapacity: true)
            }
            close(descriptor)
            finished.signal()
        }
        thread.name = "output capture"
        thread.start()
    }

    /// Waits (at most 5 s) until the pipe has reached end of file, so that ``text`` is complete.
    /// Children of the child that keep the pipe open would otherwise delay it forever.
    func waitForEnd() {
        if finished.wait(timeout: .now() + 5) == .success {
            finished.signal()
        }
    }

    /// What has been read so far.
    var text: String {
        buffer.withLock { String(decoding: $0, as: UTF8.self) }
    }
}

/// A program left running in the background (a live example following changes, a socket
/// activator), its stdout and stderr in a log file; killed when dropped if it still runs.
final class BackgroundProgram {
    let process: ChildProcess
    let log: URL

    /// Starts `executable` with `arguments`, logging to `log`.
    init(_ executable: URL, _ arguments: [String], log: URL) throws {
        self.log = log
        process = try ChildProcess(
            executable: executable.path, arguments: arguments,
            standardOutput: .file(log.path, truncate: true), standardError: .output)
    }

    /// Everything it printed so far.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits until its output contains `text`, it exits, or `timeout` passes.
    func wait(for text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) && process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until it exits or `timeout` passes; how it ended, or nil when it still runs.
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> ChildProcess.Termination? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return process.ended
    }

    deinit {
        if process.isRunning {
            process.send(SIGKILL)
            process.waitUntilExit()
        }
    }
}
