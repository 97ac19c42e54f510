import ArgumentParser
import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusReport

/// `salusctl stats TYPE`: the owner's merged statistics of one quantity type, per interval or
/// over a window, through the admin socket.
struct Stats: AdminCommand {
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

    func run(client: RPCClient) async throws {
        let types = try await client.listTypes()
        let definition = try Registry(types).resolve(type)
        guard definition.kind == .quantity else {
            throw CommandFailure("TYPE: \(definition.identifier) is not a quantity type; expected a quantity type such as stepCount or heartRate")
        }
        let cumulative = definition.aggregationStyle == .cumulative
        var options: [Salus_V1_StatisticsOption] = cumulative ? [.cumulativeSum] : [.discreteAverage, .discreteMin, .discreteMax]
        if bySource { options.append(.separateBySource) }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        var start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        var end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        if let start, let end, start > end {
            throw CommandFailure("--until: \(until!) is before --since \(since!); expected a date at or after --since")
        }
        var results: [Salus_V1_StatisticsResult] = []
        if let interval {
            let today = calendar.startOfDay(for: Date())
            start = start ?? calendar.date(byAdding: .day, value: -6, to: today)!
            end = end ?? calendar.date(byAdding: .day, value: 1, to: today)!
            var request = Salus_V1_StatisticsCollectionRequest()
            request.type = definition.identifier
            request.options = options
            request.unit = unit ?? ""
            request.intervalCount = 1
            request.timeZone = calendar.timeZone.identifier
            request.from = Self.microseconds(start!)
            request.to = Self.microseconds(max(end!, start!))
            switch interval {
            case .hour:
                request.intervalUnit = .hour
                request.anchorDate = Self.microseconds(calendar.startOfDay(for: start!))
            case .day:
                request.intervalUnit = .day
                request.anchorDate = Self.microseconds(calendar.startOfDay(for: start!))
            case .week:
                request.intervalUnit = .week
                // 2001-01-01 was a Monday.
                request.anchorDate = Self.microseconds(calendar.date(from: DateComponents(year: 2001, month: 1, day: 1))!)
            case .month:
                request.intervalUnit = .month
                let month = calendar.dateComponents([.year, .month], from: start!)
                request.anchorDate = Self.microseconds(calendar.date(from: month)!)
            }
            let stream = try client.serverStreaming(
                SalusMethods.Statistics.queryCollection, request: request)
            for try await batch in stream {
                results += batch.statistics
                if batch.initialResultsComplete { break }
            }
        } else {
            var request = Salus_V1_StatisticsRequest()
            request.type = definition.identifier
            request.options = options
            request.unit = unit ?? ""
            if start != nil || end != nil {
                request.windowStart = Self.microseconds(start ?? Date(timeIntervalSince1970: 0))
                request.windowEnd = Self.microseconds(end ?? Date())
            }
            let response: Salus_V1_StatisticsResponse = try await client.unary(
                SalusMethods.Statistics.query, request: request)
            results = [response.statistics]
        }
        if json {
            print(Self.json(results, cumulative: cumulative))
        } else {
            print(Self.table(
                results, cumulative: cumulative, bySource: bySource, hourly: interval == .hour,
                style: interval == nil ? TerminalStyle(graphics: false, colours: false) : .standardOutput))
            print("\(definition.identifier), \(cumulative ? "merged sums" : "averages, minimums and maximums") in \(results.first?.unit ?? "")")
        }
        if results.allSatisfy({ Self.barValue($0.values, cumulative: cumulative) == nil }) {
            try await hintWhereTheDataIs(definition.identifier, client: client, calendar: calendar)
        }
    }

    /// A period without data, while the store holds this type elsewhere (an import of years
    /// past): says where, on standard error, with the command that shows it.
    func hintWhereTheDataIs(_ identifier: String, client: RPCClient, calendar: Calendar) async throws {
        guard let range = try await DataRange.of([identifier], client: client, known: [identifier]) else {
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

    static func microseconds(_ date: Date) -> Int64 {
        Int64(clampingRounded: date.timeIntervalSince1970 * 1_000_000)
    }

    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// A number without needless decimals: 1234, 71.5, 0.333.
    static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.3f", value).replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    }

    static func text(_ values: Salus_V1_StatisticValues, cumulative: Bool) -> [String] {
        if cumulative { return [values.optionalSum != nil ? number(values.sum) : "-"] }
        return [
            values.optionalAverage != nil ? number(values.average) : "-",
            values.optionalMinimum != nil ? number(values.minimum) : "-",
            values.optionalMaximum != nil ? number(values.maximum) : "-",
        ]
    }

    /// The width of the bars drawn at a terminal.
    static let barWidth = 30

    /// The figure a bar shows: the sum, else the average.
    static func barValue(_ values: Salus_V1_StatisticValues, cumulative: Bool) -> Double? {
        cumulative ? (values.optionalSum != nil ? values.sum : nil) : (values.optionalAverage != nil ? values.average : nil)
    }

    static func table(
        _ results: [Salus_V1_StatisticsResult], cumulative: Bool, bySource: Bool, hourly: Bool,
        style terminal: TerminalStyle = TerminalStyle(graphics: false, colours: false)
    ) -> String {
        let style = Date.ISO8601FormatStyle(timeZone: .current)
        let maximum = results.compactMap { barValue($0.values, cumulative: cumulative) }.max() ?? 0
        func bar(_ values: Salus_V1_StatisticValues) -> [String] {
            guard terminal.graphics else { return [] }
            return [terminal.paint(TerminalBars.bar(barValue(values, cumulative: cumulative), maximum: maximum, width: barWidth), .green)]
        }
        var rows = [["START", "END"] + (cumulative ? ["SUM"] : ["AVERAGE", "MIN", "MAX"]) + (terminal.graphics ? [""] : []) + ["SOURCES"]]
        for result in results {
            let start = result.startDate == 0 && result.endDate == 0 ? "-" : date(result.startDate).formatted(style)
            let end = result.startDate == 0 && result.endDate == 0 ? "-" : date(result.endDate).formatted(style)
            rows.append([start, end] + text(result.values, cumulative: cumulative) + bar(result.values) + [result.sources.joined(separator: ",")])
            if bySource {
                for source in result.bySource.keys.sorted() {
                    rows.append(["", "  " + source] + text(result.bySource[source]!, cumulative: cumulative) + bar(result.bySource[source]!) + [""])
                }
            }
        }
        return Table.render(rows)
    }

    static func jsonValues(_ values: Salus_V1_StatisticValues) -> [String: Any] {
        var object: [String: Any] = [:]
        if values.optionalSum != nil { object["sum"] = values.sum }
        if values.optionalAverage != nil { object["average"] = values.average }
        if values.optionalMinimum != nil { object["minimum"] = values.minimum }
        if values.optionalMaximum != nil { object["maximum"] = values.maximum }
        return object
    }

    static func json(_ results: [Salus_V1_StatisticsResult], cumulative: Bool) -> String {
        let style = Date.ISO8601FormatStyle(timeZone: .current)
        let objects: [[String: Any]] = results.map { result in
            var object = jsonValues(result.values)
            object["start"] = date(result.startDate).formatted(style)
            object["end"] = date(result.endDate).formatted(style)
            object["unit"] = result.unit
            object["sources"] = result.sources
            if !result.bySource.isEmpty { object["bySource"] = result.bySource.mapValues(jsonValues) }
            return object
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
