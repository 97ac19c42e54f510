import CSalusSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tools and tests that run salusd or
/// another program of their own.
///
/// ```swift
/// let child = try ChildProcess(executable: "/usr/bin/env", arguments: ["true"])
/// let ended = child.waitUntilExit()   // .exited(0)
/// ```
///
/// Not Foundation's `Process`, for three reasons:
/// - Its `run()` on Linux can crash the parent: it counts the open descriptors by copying a
///   whole 256-byte `d_name` out of each `/proc/self/fd` entry, which reads past the end of
///   glibc's directory buffer when an entry sits just before an unmapped page. A process with
///   many descriptors (a test run, a load run) meets it sooner or later.
/// - A child inherits the signal mask of the thread that starts it, and a test runner's or an
///   executor's threads block SIGTERM; a daemon started from one would ignore `SIGTERM`. Here
///   the child starts with no signal blocked. Signals this process ignores stay ignored in the
///   child (SIGPIPE, which SwiftNIO ignores), as a shell and Foundation's `Process` leave them.
/// - It learns that a child ended when a descriptor the child inherited closes, so a child
///   that leaves a grandchild holding it (`pg_ctl start`) looks alive for ever. Here every
///   descriptor from 3 up is closed in the child, and the end is learnt from `waitpid`.
///
/// The process is reaped by ``waitUntilExit()`` or by ``isRunning`` once it has ended; both
/// may be called from any thread.
package final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// This process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// A file, created when missing, appended to or truncated first.
        case file(String, truncate: Bool = false)
        /// A pipe whose read end this process gets (``outputDescriptor``); for standard error,
        /// the same pipe as standard output when that is one too.
        case pipe
        /// The same as standard output (for standard error only).
        case output
    }

    /// How the child ended.
    package enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The status a shell reports: the exit status, or 128 + the signal number.
        package var shellStatus: Int32 {
            switch self {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }

        package var description: String {
            switch self {
            case .exited(let status): "status \(status)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// A spawn that failed, naming the program and the reason.
    package struct SpawnError: Error, CustomStringConvertible {
        package var description: String
    }

    /// The child's pid.
    package let processIdentifier: pid_t
    /// The read end of the child's standard output (and standard error, with `.output` or
    /// `.pipe`) when it is `.pipe`; the caller reads and closes it.
    package let outputDescriptor: Int32?

    private let termination = Mutex<Termination?>(nil)

    /// Starts `executable` (a path) with `arguments`; `environment` replaces this process's
    /// when given, and `directory` is the child's working directory when given.
    package init(
        executable: String, arguments: [String] = [], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .inherit, standardError: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var pipeEnds: [Int32] = [-1, -1]
        let wantsPipe = [standardOutput, standardError].contains { if case .pipe = $0 { true } else { false } }
        if wantsPipe, csalus_pipe_cloexec(&pipeEnds) != 0 {
            throw SpawnError(description: "cannot start \(executable): pipe: \(String(cString: strerror(errno)))")
        }
        defer { if pipeEnds[1] >= 0 { close(pipeEnds[1]) } }

        for (descriptor, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path, let truncate):
                let flags = descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND)
                posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644)
            case .pipe:
                posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], descriptor)
            case .output:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            }
        }
        if let directory { csalus_spawn_addchdir(&actions, directory) }
        csalus_spawn_addclosefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }

        var pid: pid_t = 0
        let result = envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]) }
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        outputDescriptor = pipeEnds[0] >= 0 ? pipeEnds[0] : nil
    }

    /// Whether the child has not ended yet (it is reaped if it has).
    package var isRunning: Bool {
        if termination.withLock({ $0 }) != nil { return false }
        return reap(blocking: false) == nil
    }

    /// How the child ended, once it has (nil while it runs).
    package var ended: Termination? {
        isRunning ? nil : termination.withLock { $0 }
    }

    /// Waits until the child ends; returns how.
    @discardableResult
    package func waitUntilExit() -> Termination {
        if let ended = termination.withLock({ $0 }) { return ended }
        while true {
            if let ended = reap(blocking: true) { return ended }
        }
    }

    /// Sends `signal` to the child, unless it has been reaped (its pid may be another's by then).
    package func send(_ signal: Int32) {
        termination.withLock { ended in
            if ended == nil { kill(processIdentifier, signal) }
        }
    }

    /// Appends what one read(2) of `descriptor` returns to `buffer`, retrying when a signal
    /// interrupts it; false at the end of the stream (or on an error).
    /// Reads through a 16 KiB scratch buffer on the stack, so a read loop allocates nothing but
    /// what `buffer` grows by.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 16_384, alignment: 1) { chunk in
            while true {
                let count = Glibc.read(descriptor, chunk.baseAddress, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                return true
            }
        }
    }

    /// Everything `descriptor` gives until the end of the stream; closes it. Empty for nil.
    package static func readToEnd(_ descriptor: Int32?) -> [UInt8] {
        guard let descriptor else { return [] }
        var buffer: [UInt8] = []
        while read(descriptor, into: &buffer) {}
        close(descriptor)
        return buffer
    }

    /// Reaps the child if it has ended (or waits for it with `blocking`); nil while it runs.
    private func reap(blocking: Bool) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
        if result == processIdentifier {
            let ended: Termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            termination.withLock { $0 = ended }
            return ended
        }
        if result == 0 || (result < 0 && errno == EINTR) { return nil }
        // ECHILD: another thread reaped it and is about to record how it ended.
        while true {
            if let ended = termination.withLock({ $0 }) { return ended }
            sched_yield()
        }
    }
}
