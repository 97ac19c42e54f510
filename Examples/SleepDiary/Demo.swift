import Foundation
import SalusKit
import Synchronization

/// `demo`: the whole story in one terminal. Saves a night, reads it back, then follows the
/// anchored live query while a second process (this program again) adds a sample and deletes it.
enum Demo {
    static func run(_ arguments: Arguments) async throws {
        try arguments.allowOnly([], command: "demo")
        try await Night.run(Arguments([String]()).with(socket: arguments["--socket"]))
        let store = try await Diary.connect(arguments)
        defer { Task { await store.close() } }
        let ready = Mutex(false)
        let follower = Task {
            try await Follow.follow(store: store, from: nil, updates: 2) { ready.withLock { $0 = true } }
        }
        while !ready.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        let socket = arguments["--socket"].map { ["--socket", $0] } ?? []
        try await runSelf(["add", "--stage", "rem", "--minutes", "25"] + socket)
        try await runSelf(["delete", "--last"] + socket)
        try await follower.value
    }

    /// Runs this program with `arguments` as a second process and waits for it.
    static func runSelf(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        say("$ sleepdiary \(arguments.joined(separator: " "))")
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard process.terminationStatus == 0 else {
            throw DiaryError("sleepdiary \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
    }
}

extension Arguments {
    /// These arguments with `--socket` set when `socket` is given.
    func with(socket: String?) throws -> Arguments {
        guard let socket else { return self }
        return try Arguments(["--socket", socket])
    }
}
