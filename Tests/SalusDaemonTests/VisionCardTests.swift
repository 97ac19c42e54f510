import Foundation
import Testing

/// The VisionCard example end to end against a real daemon, and the owner browsing the result
/// with `salusctl prescriptions` and attaching with `salusctl attach`.
@Suite("VisionCard example and salusctl prescriptions")
struct VisionCardTests {
    static let card = DaemonHarness.binary("VisionCard")
    static let salusctl = DaemonHarness.binary("salusctl")

    static func card(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(card, arguments, environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(60))
    }

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(salusctl, arguments + ["--admin-socket", daemon.adminSocketPath], timeout: .seconds(60))
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 9, count: 2000)

    @Test("VisionCard saves a prescription with its scan and prints what it may read; salusctl lists, shows and attaches")
    func visionCard() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let added = try await Self.salusctl(daemon, [
            "apps", "add", "org.example.visioncard", "--name", "Vision Card", "--read-usage", "Shows your prescriptions",
            "--write-usage", "Keeps your prescriptions",
        ])
        #expect(added.status == 0, "\(added.output)")
        #expect(try await Self.salusctl(daemon, ["apps", "policy", "org.example.visioncard", "grant-all"]).status == 0)
        let scan = daemon.directory.appendingPathComponent("scan.pdf")
        try Data(Self.png).write(to: scan)
        let run = try await Self.card(daemon, ["--scan", scan.path, "--sphere", "-2.25"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("attached scan.pdf as image/png, 2008 bytes"), "\(run.output)")
        #expect(run.output.contains("the owner granted 1 prescription:"), "\(run.output)")
        #expect(run.output.contains("glasses issued"))
        #expect(run.output.contains("valid today, 1 attachment: scan.pdf (image/png)"), "\(run.output)")

        let outOfRange = try await Self.card(daemon, ["--scan", scan.path, "--sphere", "-12"])
        #expect(outOfRange.status == 1)
        #expect(outOfRange.output.contains("rightEye.sphere"), "\(outOfRange.output)")

        let gif = daemon.directory.appendingPathComponent("scan.png")
        try Data(Array("GIF89a".utf8) + Array(repeating: 1, count: 100)).write(to: gif)
        let refused = try await Self.card(daemon, ["--scan", gif.path])
        #expect(refused.status == 1)
        #expect(refused.output.contains("a GIF"), "\(refused.output)")

        let listed = try await Self.salusctl(daemon, ["prescriptions", "list", "--valid-today", "--json"])
        #expect(listed.status == 0, "\(listed.output)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        // The GIF run saved its prescription before the scan was refused: two prescriptions.
        #expect(array.count == 2)
        let first = try #require(array.first)
        #expect(first["prescriptionType"] as? String == "glasses")
        #expect((first["rightEye"] as? [String: Any])?["sphere"] as? Double == -2.25)
        let uuid = try #require(first["uuid"] as? String)

        let pdf = daemon.directory.appendingPathComponent("letter.bin")
        try Data("%PDF-1.4\nletter".utf8).write(to: pdf)
        let attached = try await Self.salusctl(daemon, ["attach", uuid, pdf.path, "--name", "letter.pdf"])
        #expect(attached.status == 0, "\(attached.output)")
        #expect(attached.output.contains("attached letter.pdf (application/pdf"))

        let shown = try await Self.salusctl(daemon, ["prescriptions", "show", uuid])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.output.contains("right eye  sphere -2.25 D"), "\(shown.output)")
        #expect(shown.output.contains("scan.pdf  image/png  2008 bytes"))
        #expect(shown.output.contains("letter.pdf  application/pdf"))

        let contacts = try await Self.salusctl(daemon, ["prescriptions", "list", "--type", "contacts"])
        #expect(contacts.output.contains("No vision prescriptions."), "\(contacts.output)")
        #expect(try await daemon.stop() == 0)
    }
}
