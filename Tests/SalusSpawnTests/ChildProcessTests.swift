import SalusSpawn
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Child processes")
struct ChildProcessTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("stdout and stderr arrive through one pipe, and the exit status is the child's")
    func outputAndStatus() throws {
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"], standardOutput: .pipe, standardError: .output)
        let output = Self.text(ChildProcess.readToEnd(child.outputDescriptor))
        #expect(output == "out\nerr\n")
        #expect(child.waitUntilExit() == .exited(3))
        #expect(child.waitUntilExit().shellStatus == 3)
        #expect(!child.isRunning)
        #expect(child.ended == .exited(3))
    }

    @Test("the working directory and the environment are the ones given")
    func directoryAndEnvironment() throws {
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "pwd; echo \"$SALUS_SPAWN_TEST\"; echo \"${HOME-unset}\""],
            environment: ["SALUS_SPAWN_TEST": "a value"], directory: "/usr", standardOutput: .pipe)
        #expect(Self.text(ChildProcess.readToEnd(child.outputDescriptor)) == "/usr\na value\nunset\n")
        #expect(child.waitUntilExit() == .exited(0))
    }

    @Test("a child started from a thread that blocks SIGTERM still ends on SIGTERM; a signal's end reads 128 + its number")
    func signalMaskCleared() throws {
        var block = sigset_t()
        var previous = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.send(SIGTERM)
        let ended = child.waitUntilExit()
        #expect(ended == .signalled(SIGTERM))
        #expect(ended.shellStatus == 128 + SIGTERM)
    }

    @Test("no descriptor of the parent but the standard three reaches the child")
    func descriptorsClosed() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // no close-on-exec: a plain spawn would hand both ends down
        defer { ends.forEach { close($0) } }
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "for fd in \(ends[0]) \(ends[1]); do test -e /proc/$$/fd/$fd && echo open $fd; done; true"],
            standardOutput: .pipe)
        #expect(Self.text(ChildProcess.readToEnd(child.outputDescriptor)) == "")
        #expect(child.waitUntilExit() == .exited(0))
    }

    @Test("a missing program is an error that names it, not a child")
    func missingProgram() {
        #expect {
            try ChildProcess(executable: "/nonexistent/salus-no-such-program")
        } throws: { error in
            "\(error)".contains("/nonexistent/salus-no-such-program") && "\(error)".contains("No such file")
        }
    }

    @Test("spawns from several threads at once, each waited on from two threads, all end with their own status")
    func concurrentSpawns() async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit \(index % 7)"])
                    async let other = Task.detached { child.waitUntilExit() }.value
                    let mine = child.waitUntilExit()
                    return await other == mine && mine == .exited(Int32(index % 7))
                }
            }
            for try await matched in group { #expect(matched) }
        }
    }
}
