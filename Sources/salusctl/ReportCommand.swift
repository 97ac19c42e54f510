import ArgumentParser
import Foundation
import SalusKit
import SalusModel
import SalusAdmin
import SalusReport

/// `salusctl report`: one self-contained HTML page of the person's sleep, steps, stand hours,
/// heart rate, cycle and workouts over a period, drawn with Chart.js.
struct Report: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an HTML report with charts: sleep, steps, heart rate, cycle tracking and workouts.",
        discussion: """
            The report is one HTML file that opens offline in any browser: Chart.js (Debian's \
            libjs-chart.js) is copied into it, with only the data its charts show. Sections: a \
            hypnogram per night; daily merged steps with the goal line (pushes for wheelchair \
            users); stand hours (roll hours) from the activity summaries; the daily heart-rate range \
            with the resting heart rate; a cycle-tracking calendar of menstrual flow, spotting, \
            ovulation tests and basal body temperature; the workouts with their figures and \
            routes; and who used your data (salusctl access). A section with no data says so.

            The period is [--since, --until] in whole days of your time zone (salusctl summary goals \
            --time-zone sets it); by default the last 30 days, today included. Dates are as for \
            salusctl samples. A night belongs to the day it ended on.
            """
    )

    static let defaultChartLibrary = "/usr/share/javascript/chart.js/chart.min.js"

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("Write the report to this file.", valueName: "file"))
    var out: String = "report.html"

    @Option(name: .long, help: ArgumentHelp("The first day (default: 29 days before today).", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("The last day, included (default: today).", valueName: "date"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("The daily step (push) goal drawn as a line.", valueName: "count"))
    var stepGoal: Double = 10_000

    @Option(name: .long, help: ArgumentHelp("The time zone days are counted in (default: the one salusctl summary goals sets).", valueName: "zone"))
    var timeZone: String?

    @Option(name: .long, help: ArgumentHelp("Chart.js's UMD build to inline.", valueName: "file"))
    var chartJs: String = Report.defaultChartLibrary

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out: the file name is empty; expected a path such as report.html") }
        guard stepGoal.isFinite, stepGoal > 0 else {
            throw ValidationError("--step-goal: \(stepGoal) is not valid; expected a positive number such as 10000")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone: \"\(timeZone)\" is not a time zone; expected an IANA name such as Europe/Paris")
        }
        _ = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        _ = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
    }

    func run(admin: AdminClient) async throws {
        guard let library = FileManager.default.contents(atPath: chartJs) else {
            throw CommandFailure(
                "--chart-js: cannot read \(chartJs); expected Chart.js's UMD build (Debian's libjs-chart.js installs \(Self.defaultChartLibrary))")
        }
        let zoneName = if let timeZone { timeZone } else { try await admin.activitySettings().timeZone }
        guard let zone = TimeZone(identifier: zoneName) ?? TimeZone(identifier: "UTC") else {
            throw CommandFailure("time zone \"\(zoneName)\" is not known")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: Date())
        // Dates without a zone are read in the process's zone by DateArgument; the days of the
        // period are then taken in the report's zone.
        let from = calendar.startOfDay(for: try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
            ?? calendar.date(byAdding: .day, value: -29, to: today)!)
        let lastDay = try until.map { calendar.startOfDay(for: try DateArgument.parse($0, flag: "--until", endOfDay: true).addingTimeInterval(-1)) } ?? today
        let to = calendar.date(byAdding: .day, value: 1, to: lastDay)!
        guard to > from else {
            throw CommandFailure("--until: \(until ?? "today") is before --since \(since ?? ""); expected a day at or after --since")
        }
        guard calendar.dateComponents([.day], from: from, to: to).day! <= 366 else {
            throw CommandFailure("--since/--until: the period is longer than 366 days; expected a year at most")
        }

        var data = try await admin.reportData(from: from, to: to, timeZone: zone, stepGoal: stepGoal, progress: progress)
        progress("the access log")
        let accesses = try await admin.accessLog(since: from).entries.filter { $0.first < to }
        data.accessLines = AccessLogText.lines(accesses, calendar: calendar).map(\.text)
        let days = data.days
        let page = ReportPage.render(data, chartLibrary: String(decoding: library, as: UTF8.self))
        let url = URL(fileURLWithPath: out)
        do {
            // The page holds the person's data: 0600 from its creation, whatever the umask.
            try PrivateOutput.write(Data(page.utf8), to: url.path)
        } catch {
            throw CommandFailure("--out: cannot write \(out): \(error)")
        }
        print("wrote \(out): \(days.first!) to \(days.last!), \(data.nights.count) night\(data.nights.count == 1 ? "" : "s"), "
              + "\(data.workouts.count) workout\(data.workouts.count == 1 ? "" : "s"), \(page.utf8.count / 1024) KB")
        if !data.showsData {
            // An import of years past lands outside the last 30 days: say where the data is.
            let known = Set(try await admin.typeIdentifiers())
            let shown = AdminClient.reportTypes(wheelchairUse: data.wheelchairUse)
            if let range = try await DataRange.of(shown, admin: admin, known: known) {
                let period = range.lastDays(30, calendar)
                FileHandle.standardError.write(Data("""
                    report: nothing to show from \(days.first!) to \(days.last!); the store holds sleep, activity, heart-rate, \
                    workout or cycle data from \(range.days(calendar)). Its last 30 days: \
                    salusctl report --since \(period.since) --until \(period.until)

                    """.utf8))
            }
        }
    }

    func progress(_ section: String) {
        FileHandle.standardError.write(Data("report: reading \(section)\n".utf8))
    }
}
