import Foundation
import Testing

/// The person's answer decides what a launched app sees: the flow of `salusctl consent` and
/// `salusctl launch` with the SleepDiary example, against a daemon that is not in development
/// mode.
@Suite("Consent decides what a launched app sees")
struct ConsentFlowTests {
    static let diary = DaemonHarness.binary("SleepDiary")
    static let salusctl = DaemonHarness.binary("salusctl")
    static let appID = "org.example.sleepdiary"

    static func ctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await ctl(admin: daemon.adminSocketPath, arguments)
    }

    static func ctl(admin: String, _ arguments: [String]) async throws -> CommandResult {
        // Before any "--": what follows it is the launched command's.
        var arguments = arguments
        arguments.insert(contentsOf: ["--admin-socket", admin], at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
        return try await DaemonHarness.run(salusctl, arguments, timeout: .seconds(60))
    }

    /// Waits for the app's pending request and returns its id.
    static func pendingRequest(_ daemon: DaemonHarness) async throws -> String {
        for _ in 0..<200 {
            let listed = try await ctl(daemon, ["consent", "list", "--json"])
            if let data = listed.output.data(using: .utf8),
               let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               let requests = json["requests"] as? [[String: Any]],
               let request = requests.first(where: { $0["appId"] as? String == appID }),
               let id = request["id"] as? String {
                return id
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("no pending request from \(appID) appeared in salusctl consent")
    }

    @Test("granted: the launched diary saves and reads its night; refused: it can neither save nor read")
    func consentDecides() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let added = try await Self.ctl(daemon, [
            "apps", "add", Self.appID, "--name", "Sleep diary",
            "--read-usage", "Shows your nights", "--write-usage", "Records your nights",
        ])
        #expect(added.status == 0, "\(added.output)")

        // The diary waits in requestAuthorization until the owner answers.
        let admin = daemon.adminSocketPath
        let night = Task {
            try await Self.ctl(admin: admin, ["launch", "--app", Self.appID, "--", Self.diary.path, "night", "--date", "2026-11-20", "--time-zone", "Europe/Paris"])
        }
        let request = try await Self.pendingRequest(daemon)
        let listed = try await Self.ctl(daemon, ["consent", "list"])
        #expect(listed.output.contains("Sleep diary"))
        #expect(listed.output.contains("Records your nights"))
        // How the app is known and whether that holds, in the words salus-notify uses too.
        #expect(listed.output.contains("Known as launched by you (salusctl launch: its own socket): strong identity."), "\(listed.output)")
        let answered = try await Self.ctl(daemon, ["consent", "answer", request, "--all"])
        #expect(answered.status == 0, "\(answered.output)")
        let granted = try await night.value
        #expect(granted.status == 0, "\(granted.output)")
        #expect(granted.output.contains("saved 13"), "\(granted.output)")
        #expect(granted.output.contains("REM: 3 samples"), "\(granted.output)")

        // Back to "not determined"; this time the person refuses everything.
        #expect(try await Self.ctl(daemon, ["apps", "reset", Self.appID]).status == 0)
        let again = Task {
            try await Self.ctl(admin: admin, ["launch", "--app", Self.appID, "--", Self.diary.path, "night", "--date", "2026-11-21", "--time-zone", "Europe/Paris"])
        }
        let second = try await Self.pendingRequest(daemon)
        #expect(try await Self.ctl(daemon, ["consent", "answer", second, "--none"]).status == 0)
        let refused = try await again.value
        #expect(refused.status != 0)
        #expect(refused.output.contains("denied") || refused.output.contains("Denied"), "\(refused.output)")

        // A process that did not come through the launcher cannot act as the diary.
        let direct = try await DaemonHarness.run(Self.diary, ["night", "--date", "2026-11-22"], environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(60))
        #expect(direct.status != 0)
        #expect(direct.output.contains("launch"), "\(direct.output)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("consent watch asks the person at a terminal prompt; their answer lets the launched diary in")
    func consentWatch() async throws {
        let script = try #require(DaemonHarness.findExecutable("script"), "script (util-linux) gives consent watch a terminal")
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        #expect(try await Self.ctl(daemon, ["apps", "add", Self.appID, "--name", "Sleep diary", "--read-usage", "Shows your nights", "--write-usage", "Records your nights"]).status == 0)
        // The person: a terminal running consent watch, who types "a" (allow all) after a moment.
        let shell = "(sleep 2; printf 'a\\n'; sleep 3) | \(script.path) -qfc '\(Self.salusctl.path) consent watch --admin-socket \(daemon.adminSocketPath)' /dev/null"
        let admin = daemon.adminSocketPath
        let watch = Task { try await DaemonHarness.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "timeout 8 sh -c \"\(shell)\""], timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(500))
        let night = try await Self.ctl(admin: admin, ["launch", "--app", Self.appID, "--", Self.diary.path, "night", "--date", "2026-11-20", "--time-zone", "Europe/Paris"])
        #expect(night.status == 0, "\(night.output)")
        #expect(night.output.contains("REM: 3 samples"), "\(night.output)")
        let prompt = try await watch.value
        #expect(prompt.output.contains("Sleep diary (org.example.sleepdiary)"), "\(prompt.output)")
        #expect(prompt.output.contains("because: Records your nights"))
        #expect(prompt.output.contains("allow? [a]ll, [n]othing, [c]hoose, [s]kip"))
        #expect(prompt.output.contains("answered"))
        #expect(try await daemon.stop() == 0)
    }

    @Test("SIGTERM while an app waits for the owner's answer: the daemon still stops, with exit 0")
    func shutdownWithPendingRequest() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--drain-timeout", "1"], bundledPlugins: true)
        #expect(try await Self.ctl(daemon, ["apps", "add", Self.appID, "--name", "Sleep diary", "--read-usage", "r", "--write-usage", "w"]).status == 0)
        let admin = daemon.adminSocketPath
        let waiting = Task {
            try await Self.ctl(admin: admin, ["launch", "--app", Self.appID, "--", Self.diary.path, "night", "--date", "2026-11-20"])
        }
        _ = try await Self.pendingRequest(daemon)
        let start = ContinuousClock.now
        #expect(try await daemon.stop() == 0)
        // It stops (a waiting request does not hold it for ever); 30 s leaves room for a
        // machine running the whole suite on two cores.
        #expect(ContinuousClock.now - start < .seconds(30))
        let diary = try await waiting.value
        #expect(diary.status != 0, "the waiting app learns the daemon went away: \(diary.output)")
    }
}
