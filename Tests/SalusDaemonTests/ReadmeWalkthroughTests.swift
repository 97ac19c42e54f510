import Foundation
import SalusTestSupport
import Testing

/// The README's walkthrough, copied line by line into a shell: the block after the
/// `<!-- walkthrough: ... -->` marker runs as written, from a project folder whose `.build/debug`
/// holds this build and whose `../shared` is the shared test data, against a running salusd.
@Suite("The README's walkthrough runs as written")
struct ReadmeWalkthroughTests {
    static let readme = DaemonHarness.packageRoot.appendingPathComponent("README.md")
    static let shared = DaemonHarness.packageRoot.appendingPathComponent("../shared").standardizedFileURL

    /// The shell block that follows the marker.
    static func walkthrough() throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- walkthrough:"), "README.md has no walkthrough marker")
        let open = try #require(text.range(of: "```sh\n", range: marker.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    @Test(
        "every line runs: the import says which days came in, the empty default report says where they are, and the named days show them",
        .enabled(if: FileManager.default.fileExists(atPath: shared.appendingPathComponent("data/apple-health").path), "needs ../shared/data beside the project"),
        .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/javascript/chart.js/chart.min.js"), "needs Debian's libjs-chart.js"))
    func runsAsWritten() async throws {
        let script = try Self.walkthrough()
        #expect(script.contains("salusctl import ../shared/data/apple-health/tdda-applehealthdata/"))
        // A project folder as a person has it: .build/debug with the programs, ../shared beside it.
        let root = try DaemonHarness.makeTemporaryDirectory(prefix: "walkthrough")
        defer { try? FileManager.default.removeItem(at: root) }
        let project = root.appendingPathComponent("salus", isDirectory: true)
        try FileManager.default.createDirectory(at: project.appendingPathComponent(".build"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: project.appendingPathComponent(".build/debug"), withDestinationURL: DaemonHarness.binDirectory)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("shared"), withDestinationURL: Self.shared)
        let file = root.appendingPathComponent("walkthrough.sh")
        try Data(("set -euo pipefail\n" + script).utf8).write(to: file)

        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let result = try await DaemonHarness.run(
            URL(fileURLWithPath: "/bin/bash"), [file.path], in: project,
            environment: ["SALUS_ADMIN_SOCKET": daemon.adminSocketPath, "TZ": "Europe/London", "NO_COLOR": "1"],
            timeout: .seconds(300))
        #expect(result.status == 0, "\(result.output)")
        // The import names the days the store holds and the commands that show them.
        #expect(result.output.contains("The store holds data from 2014-09-13 to 2016-04-02"), "\(result.output)")
        #expect(result.output.contains("salusctl report --since 2016-03-04 --until 2016-04-02 --out report.html"), "\(result.output)")
        // The default report is empty and says where the data is; the named days show it.
        #expect(result.output.contains("report: nothing to show from"), "\(result.output)")
        #expect(result.output.contains("wrote report.html: 2016-03-04 to 2016-04-02, 0 nights, 1 workout"), "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("report.html").path))
        #expect(try await daemon.stop() == 0)
    }
}
