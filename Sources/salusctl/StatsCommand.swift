import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusReport

/// `salusctl stats TYPE`: the owner's merged statistics of one quantity type, per interval or
/// over a window, through the admin socket.
struct Stats: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show statistics of one quantity type, merged across sources by priority.",
        discussion: """
            Cumulative types (steps, distance, energy) show sums, merged across sources: where \
            several apps recorded the same time, only the highest-priority one counts (salusctl \
            priority set TYPE SOURCE...; unlisted sources rank below listed ones, then the most \
            recently saved wins). Discrete types (heart rate, body mass) show the average, minimum \
            and maximum. docs/statistics.md explains the rules.

            With --interval, one row per interval in local time: days and weeks start at midnight \
            (weeks on Monday), months on the 1st; intervals without samples are listed empty. \
            At a terminal, each interval's sum (or average) is also drawn as a bar, scaled to the \
            largest; coloured unless NO_COLOR is set. Piped output is the plain table.

            Without it, one row for [--since, --until) (or every sample when neither is given). \
            --since defaults to the start of the day six days ago and --until to the end of today \
            when --interval is given. Dates are as for salusctl samples.
            """
    )

    /// An interval length the command accepts.
    enum Interval: String, ExpressibleByArgument, CaseIterable {
        case hour, day, week, month

        var unit: StatisticsIntervalUnit { StatisticsIntervalUnit(rawValue: rawValue)! }
    }

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
    var type: String

    @Option(name: .long, help: ArgumentHelp("One row per interval: hour, day, week or month.", valueName: "interval"))
    var interval: Interval?

    @Option(name: .long, help: ArgumentHelp("From this date.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Up to this date (exclusive).", valueName: "date"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("The unit of the values (default: the type's unit).", valueName: "unit"))
    var unit: String?

    @Flag(name: .long, help: "Also show each source's own values.")
    var bySource = false

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    func run(admin: AdminClient) async throws {
        let definition = try Registry(try await admin.types()).resolve(type)
        guard definition.kind == .quantity else {
            throw CommandFailure("TYPE: \(definition.identifier) is not a quantity type; expected a quantity type such as stepCount or heartRate")
        }
        let cumulative = definition.aggregation == .cumulative
        var options: StatisticsOptions = cumulative ? [.cumulativeSum] : [.discreteAverage, .discreteMin, .discreteMax]
        if bySource { options.insert(.separateBySource) }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        var start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        var end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        if let start, let end, start > end {
            throw CommandFailure("--until: \(until!) is before --since \(since!); expected a date at or after --since")
        }
        let results: [MergedStatistics]
        do {
            if let interval {
                let today = calendar.startOfDay(for: Date())
                start = start ?? calendar.date(byAdding: .day, value: -6, to: today)!
                end = end ?? calendar.date(byAdding: .day, value: 1, to: today)!
                results = try await admin.statisticsCollection(
                    of: definition.identifier, options: options, unit: unit, interval: interval.unit, from: start!, to: end!,
                    timeZone: calendar.timeZone)
            } else {
                let window = start != nil || end != nil
                    ? DateInterval(start: start ?? Date(timeIntervalSince1970: 0), end: max(end ?? Date(), start ?? Date(timeIntervalSince1970: 0)))
                    : nil
                results = [try await admin.statistics(of: definition.identifier, options: options, unit: unit, window: window)]
            }
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
        if json {
            print(AdminJSON.text(statistics: results))
        } else {
            print(Self.table(
                results, cumulative: cumulative, bySource: bySource, hourly: interval == .hour,
                style: interval == nil ? TerminalStyle(graphics: false, colours: false) : .standardOutput))
            print("\(definition.identifier), \(cumulative ? "merged sums" : "averages, minimums and maximums") in \(results.first?.unit ?? "")")
        }
        if results.allSatisfy({ Self.barValue($0.values, cumulative: cumulative) == nil }) {
            try await hintWhereTheDataIs(definition.identifier, admin: admin, calendar: calendar)
        }
    }

    /// A period without data, while the store holds this type elsewhere (an import of years
    /// past): says where, on standard error, with the command that shows it.
    func hintWhereTheDataIs(_ identifier: String, admin: AdminClient, calendar: Calendar) async throws {
        guard let range = try await DataRange.of([identifier], admin: admin, known: [identifier]) else {
            FileHandle.standardError.write(Data("stats: the store holds no \(type) samples\n".utf8))
            return
        }
        let period = range.lastDays(7, calendar)
        var command = "salusctl stats \(type)"
        if let interval { command += " --interval \(interval.rawValue)" }
        command += " --since \(period.since) --until \(period.until)"
        FileHandle.standardError.write(Data("""
            stats: nothing in this period; the store holds \(type) from \(range.days(calendar)). \
            Its last week: \(command)

            """.utf8))
    }

    /// A number without needless decimals: 1234, 71.5, 0.333.
    static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.3f", value).replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    }

    static func text(_ values: StatisticFigures, cumulative: Bool) -> [String] {
        if cumulative { return [values.sum.map(number) ?? "-"] }
        return [values.average.map(number) ?? "-", values.minimum.map(number) ?? "-", values.maximum.map(number) ?? "-"]
    }

    /// The width of the bars drawn at a terminal.
    static let barWidth = 30

    /// The figure a bar shows: the sum, else the average.
    static func barValue(_ values: StatisticFigures, cumulative: Bool) -> Double? {
        cumulative ? values.sum : values.average
    }

    static func table(
        _ results: [MergedStatistics], cumulative: Bool, bySource: Bool, hourly: Bool,
        style terminal: TerminalStyle = TerminalStyle(graphics: false, colours: false)
    ) -> String {
        let style = Date.ISO8601FormatStyle(timeZone: .current)
        let maximum = results.compactMap { barValue($0.values, cumulative: cumulative) }.max() ?? 0
        func bar(_ values: StatisticFigures) -> [String] {
            guard terminal.graphics else { return [] }
            return [terminal.paint(TerminalBars.bar(barValue(values, cumulative: cumulative), maximum: maximum, width: barWidth), .green)]
        }
        var rows = [["START", "END"] + (cumulative ? ["SUM"] : ["AVERAGE", "MIN", "MAX"]) + (terminal.graphics ? [""] : []) + ["SOURCES"]]
        for result in results {
            let start = result.hasPeriod ? result.startDate.formatted(style) : "-"
            let end = result.hasPeriod ? result.endDate.formatted(style) : "-"
            rows.append([start, end] + text(result.values, cumulative: cumulative) + bar(result.values) + [result.sources.joined(separator: ",")])
            if bySource {
                for source in result.bySource.keys.sorted() {
                    rows.append(["", "  " + source] + text(result.bySource[source]!, cumulative: cumulative) + bar(result.bySource[source]!) + [""])
                }
            }
        }
        return Table.render(rows)
    }
}
