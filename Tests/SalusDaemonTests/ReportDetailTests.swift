import Foundation
import SalusTestSupport
import Testing

/// Details of the report a person noticed, each drawn by Chromium: a short night keeps every
/// row's label, a route that never left its spot draws no empty frame, and the heart-rate chart
/// has no "Resting" entry when no resting heart rate was recorded.
@Suite("salusctl report: the details of small data", .serialized)
struct ReportDetailTests {
    static let watch = "sourceName=\"Watch\" sourceVersion=\"11.1\""

    /// One evening: a 40-minute night (in bed, core sleep, awake), heart rate without a resting
    /// figure, and a walk whose route is three locations within a metre.
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_GB">
         <ExportDate value="2026-10-12 09:00:00 +0100"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" \(watch) startDate="2026-10-10 23:00:00 +0100" endDate="2026-10-10 23:40:00 +0100" value="HKCategoryValueSleepAnalysisInBed"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" \(watch) startDate="2026-10-10 23:05:00 +0100" endDate="2026-10-10 23:30:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" \(watch) startDate="2026-10-10 23:30:00 +0100" endDate="2026-10-10 23:35:00 +0100" value="HKCategoryValueSleepAnalysisAwake"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" \(watch) unit="count/min" startDate="2026-10-10 18:00:00 +0100" endDate="2026-10-10 18:00:00 +0100" value="72"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" \(watch) unit="count/min" startDate="2026-10-10 18:30:00 +0100" endDate="2026-10-10 18:30:00 +0100" value="96"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="20" durationUnit="min" \(watch) startDate="2026-10-10 17:00:00 +0100" endDate="2026-10-10 17:20:00 +0100">
          <WorkoutRoute \(watch) startDate="2026-10-10 17:00:00 +0100" endDate="2026-10-10 17:20:00 +0100">
           <Location date="2026-10-10 17:00:00 +0100" latitude="48.846200" longitude="2.337200" altitude="40" horizontalAccuracy="3" verticalAccuracy="2" course="0" speed="0"/>
           <Location date="2026-10-10 17:10:00 +0100" latitude="48.846203" longitude="2.337204" altitude="40" horizontalAccuracy="3" verticalAccuracy="2" course="0" speed="0"/>
           <Location date="2026-10-10 17:20:00 +0100" latitude="48.846206" longitude="2.337201" altitude="40" horizontalAccuracy="3" verticalAccuracy="2" course="0" speed="0"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>

        """

    @Test(
        "a short night labels every row, a route within a metre draws no frame, no Resting entry without a resting heart rate",
        .enabled(if: ReportDaemonTests.chromium != nil, "needs Debian's chromium"),
        .enabled(if: FileManager.default.fileExists(atPath: ReportDaemonTests.chartLibrary), "needs Debian's libjs-chart.js"))
    func smallData() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "report-details")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("export.xml")
        try Data(Self.export.utf8).write(to: file)
        let imported = try await ReportDaemonTests.ctl(daemon, ["import", file.path])
        #expect(imported.status == 0 && imported.output.contains("0 skipped"), "\(imported.output)")
        let out = directory.appendingPathComponent("report.html")
        let made = try await ReportDaemonTests.ctl(daemon, ["report", "--since", "2026-10-10", "--until", "2026-10-11", "--time-zone", "Europe/Paris", "--out", out.path])
        #expect(made.output.contains("1 night, 1 workout"), "\(made.output)")
        let html = try String(contentsOf: out, encoding: .utf8)
        // The walk is listed, without a map: its three locations lie within a metre.
        let listed = html.contains("<h3>Walking · "), framed = html.contains("data-chart=\"route\"")
        #expect(listed)
        #expect(!framed, "a route canvas for a route within a metre")

        let page = directory.appendingPathComponent("probed.html")
        try Data(ReportDaemonTests.probed(html).utf8).write(to: page)
        let probe = try ReportDaemonTests.probeResult(try await ReportDaemonTests.chromium(["--dump-dom", page.path]).output)
        #expect(probe.errors.isEmpty, "script errors: \(probe.errors)")
        let night = try #require(probe.charts.first { $0.kind == "night" })
        for row in ["In bed", "Awake", "Core"] {
            #expect(night.yLabels.contains(row), "the night's rows show \(night.yLabels), not \(row)")
        }
        let heart = try #require(probe.charts.first { $0.kind == "heart" })
        #expect(heart.datasets == ["Range (min–max)"], "\(heart.datasets)")
        #expect(heart.marks > 0)
        #expect(try await daemon.stop() == 0)
    }
}
