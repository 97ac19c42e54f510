import Foundation
import SalusTestSupport
import Testing

/// A newcomer's first import: years of data far from the last 30 days. The report and the
/// statistics that find nothing in their default period say where the data is and print the
/// command that shows it; that command then shows it.
@Suite("The first hour: from an import to seeing the data")
struct FirstHourTests {
    /// The tdda/applehealthdata excerpt (shared/data/apple-health/README.md): ten step and five
    /// distance records of an iPhone 6s, 2014-09-13 to 2016-04-02.
    static let export = DaemonHarness.packageRoot
        .appendingPathComponent("../shared/data/apple-health/tdda-applehealthdata/export6s3sample.xml").standardizedFileURL

    static func ctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binDirectory.appendingPathComponent("salusctl"), arguments + ["--admin-socket", daemon.adminSocketPath],
            environment: ["TZ": "Europe/London"], timeout: .seconds(120))
    }

    /// The first and last days of the file's records of `elements` (and of `type`, when given),
    /// read from the file itself with a regular expression, not the importer.
    static func days(_ element: String, type: String? = nil) throws -> (first: String, last: String) {
        let text = try String(contentsOf: export, encoding: .utf8)
        let filter = type.map { #"type="\#($0)"[^>]*"# } ?? "[^>]*"
        let pattern = try NSRegularExpression(pattern: "<\(element) \(filter)startDate=\"(\\d{4}-\\d{2}-\\d{2})")
        let days = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            String(text[Range(match.range(at: 1), in: text)!])
        }.sorted()
        return (try #require(days.first), try #require(days.last))
    }

    @Test(
        "after importing years past, report and stats say where the data is and the command that shows it; that command shows it",
        .enabled(if: FileManager.default.fileExists(atPath: export.path), "needs ../shared/data beside the project"),
        .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/javascript/chart.js/chart.min.js"), "needs Debian's libjs-chart.js"))
    func hintsAfterImport() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "first-hour")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Steps all fall on 2014-09-13; the records end in 2014, a workout on 2016-04-02.
        let steps = try Self.days("Record", type: "HKQuantityTypeIdentifierStepCount")
        let records = try Self.days("Record")
        let workouts = try Self.days("Workout")
        let days = (first: min(records.first, workouts.first), last: max(records.last, workouts.last))
        let imported = try await Self.ctl(daemon, ["import", Self.export.path])
        #expect(imported.status == 0, "\(imported.output)")

        // The default report (the last 30 days) is empty: it says where the data is.
        let out = directory.appendingPathComponent("report.html").path
        let empty = try await Self.ctl(daemon, ["report", "--out", out])
        #expect(empty.status == 0, "\(empty.output)")
        #expect(empty.output.contains("report: nothing to show from"), "\(empty.output)")
        #expect(empty.output.contains("data from \(days.first) to"), "\(empty.output)")
        let suggested = try #require(empty.output.range(of: #"salusctl report --since \d{4}-\d{2}-\d{2} --until \d{4}-\d{2}-\d{2}"#, options: .regularExpression))
        let command = empty.output[suggested].split(separator: " ").dropFirst().map(String.init)
        #expect(command.last == days.last, "\(command)")
        // The suggested command shows the data: no hint any more, and the page holds the steps.
        let shown = try await Self.ctl(daemon, command + ["--out", out])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(!shown.output.contains("nothing to show"), "\(shown.output)")
        #expect(shown.output.contains("\(command[2]) to \(days.last)") && shown.output.contains("1 workout"), "\(shown.output)")

        // The default week of stats is empty too: the same hint, for the type asked.
        let stats = try await Self.ctl(daemon, ["stats", "stepCount", "--interval", "day"])
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output.contains("stats: nothing in this period; the store holds stepCount from \(steps.first) to \(steps.last)"), "\(stats.output)")
        let statsCommand = try #require(stats.output.range(of: #"salusctl stats stepCount --interval day --since \S+ --until \S+"#, options: .regularExpression))
        let again = try await Self.ctl(daemon, stats.output[statsCommand].split(separator: " ").dropFirst().map(String.init))
        #expect(again.status == 0 && !again.output.contains("nothing in this period"), "\(again.output)")
        // The day's sum is the file's step records added up (all on that one day).
        let text = try String(contentsOf: Self.export, encoding: .utf8)
        let values = try NSRegularExpression(pattern: #"type="HKQuantityTypeIdentifierStepCount"[^>]*value="(\d+)""#)
        let sum = values.matches(in: text, range: NSRange(text.startIndex..., in: text)).reduce(0) { total, match in
            total + Int(text[Range(match.range(at: 1), in: text)!])!
        }
        #expect(sum > 0 && again.output.contains(steps.last) && again.output.contains("\(sum)"), "\(sum): \(again.output)")
        // A type the store holds nothing of says so, and suggests nothing.
        let none = try await Self.ctl(daemon, ["stats", "heartRate", "--interval", "day"])
        #expect(none.output.contains("stats: the store holds no heartRate samples"), "\(none.output)")
        #expect(try await daemon.stop() == 0)
    }
}
