import Foundation
import Plot
import SalusModel

/// The HTML page of `salusctl report`: one self-contained file, Chart.js and the page's own script
/// inlined, the data of the charts in one JSON block. Opens offline in any browser.
package enum ReportPage {
    /// The page for `data`, with `chartLibrary` (the text of Chart.js's UMD build) inlined.
    package static func render(_ data: ReportData, chartLibrary: String) -> String {
        let payload = chartData(data)
        let html = HTML(
            .lang(.english),
            .head(
                .encoding(.utf8),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1")),
                .element(named: "title", text: "Health report, \(period(data))"),
                .style(css)
            ),
            .body(
                .header(
                    .h1("Health report"),
                    .p(.class("period"), .text("\(period(data)) · \(data.timeZone.identifier) · made \(Nights.day(of: data.generated, timeZone: data.timeZone))"))
                ),
                sleepSection(data),
                stepsSection(data),
                standSection(data),
                heartSection(data),
                cycleSection(data),
                workoutSection(data),
                accessSection(data),
                .script(.attribute(named: "type", value: "application/json"), .id("salus-data"), .raw(payload)),
                .script(.raw(chartLibrary.replacingOccurrences(of: "</script", with: "<\\/script"))),
                .script(.raw(ReportScript.source))
            )
        )
        return html.render()
    }

    /// "1–30 November 2026".
    static func period(_ data: ReportData) -> String {
        let days = data.days
        guard let first = days.first, let last = days.last else { return "no days" }
        return first == last ? first : "\(first) to \(last)"
    }

    static func empty(_ text: String) -> Node<HTML.BodyContext> {
        .p(.class("empty"), .text(text))
    }

    static func canvas(_ kind: String, index: Int? = nil, height: Int) -> Node<HTML.BodyContext> {
        .div(
            .class("chart"), .style("height: \(height)px"),
            .element(named: "canvas", nodes: [
                .attribute(named: "data-chart", value: kind),
                .attribute(named: "data-index", value: index.map(String.init)),
                .attribute(named: "role", value: "img"),
                .attribute(named: "aria-label", value: kind),
            ])
        )
    }

    // MARK: Sections

    static func sleepSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        let nights = data.nights
        return .section(
            .id("sleep"),
            .h2("Sleep"),
            .if(nights.isEmpty, empty("No sleep recorded in this period.")),
            .if(!nights.isEmpty, .p(.class("summary"), .text(sleepSummary(nights)))),
            .div(.class("nights"), .forEach(Array(nights.enumerated().reversed())) { index, night in
                .div(
                    .class("night"),
                    .div(
                        .class("night-title"),
                        .strong(.text(weekdayDay(night.day))),
                        .span(.class("figures"), .text(nightFigures(night)))
                    ),
                    canvas("night", index: index, height: 30 + 20 * night.stages.count)
                )
            })
        )
    }

    static func stepsSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        let title = data.wheelchairUse ? "Pushes" : "Steps"
        let values = data.steps.compactMap(\.value)
        let average = values.isEmpty ? 0 : values.reduce(0, +) / Double(data.steps.count)
        return .section(
            .id("steps"),
            .h2(.text(title)),
            .if(values.isEmpty, empty("No \(title.lowercased()) recorded in this period.")),
            .if(!values.isEmpty, .group(
                .p(.class("summary"), .text("\(ReportNumbers.whole(average)) a day on average; goal \(ReportNumbers.whole(data.stepGoal)), reached on \(values.filter { $0 >= data.stepGoal }.count) of \(data.steps.count) days. Where several devices counted the same minutes, the highest-ranked source counts.")),
                canvas("steps", height: 240)
            ))
        )
    }

    static func standSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        let title = data.wheelchairUse ? "Roll hours" : "Stand hours"
        let active = data.standHours.contains { $0.hours > 0 }
        return .section(
            .id("stand"),
            .h2(.text(title)),
            .if(!active, empty("No \(title.lowercased()) recorded in this period.")),
            .if(active, .group(
                .p(.class("summary"), .text("Hours with at least one minute of \(data.wheelchairUse ? "rolling" : "standing and moving"), against the daily goal.")),
                canvas("stand", height: 200)
            ))
        )
    }

    static func heartSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        let days = data.heartRate.filter { $0.minimum != nil || $0.resting != nil }
        let resting = data.heartRate.compactMap(\.resting)
        return .section(
            .id("heart"),
            .h2("Heart rate"),
            .if(days.isEmpty, empty("No heart rate recorded in this period.")),
            .if(!days.isEmpty, .group(
                .p(.class("summary"), .text("Daily range from lowest to highest, in beats per minute"
                    + (resting.isEmpty ? "." : "; the line is the resting heart rate, \(ReportNumbers.whole(resting.reduce(0, +) / Double(resting.count))) on average."))),
                canvas("heart", height: 240)
            ))
        )
    }

    static func cycleSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        let recorded = data.cycle.filter { !$0.isEmpty }
        let byDay = Dictionary(data.cycle.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        let temperatures = data.cycle.contains { $0.basalBodyTemperature != nil }
        return .section(
            .id("cycle"),
            .h2("Cycle tracking"),
            .if(recorded.isEmpty, empty("No cycle tracking recorded in this period.")),
            .if(!recorded.isEmpty, .group(
                .div(
                    .class("legend"),
                    .span(.class("flow f2"), .text("light")), .span(.class("flow f3"), .text("medium")),
                    .span(.class("flow f4"), .text("heavy")), .span(.class("mark spot"), .text("spotting")),
                    .span(.class("mark lh"), .text("LH surge")), .span(.class("mark neg"), .text("negative test"))
                ),
                .forEach(months(data)) { month in calendar(month: month, byDay: byDay, data: data) },
                .if(temperatures, .group(
                    .h3("Basal body temperature"),
                    canvas("temperature", height: 200)
                ))
            ))
        )
    }

    static func workoutSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        .section(
            .id("workouts"),
            .h2("Workouts"),
            .if(data.workouts.isEmpty, empty("No workouts recorded in this period.")),
            .forEach(Array(data.workouts.enumerated().reversed())) { index, workout in
                .div(
                    .class("workout"),
                    .div(
                        .class("workout-text"),
                        .h3(.text("\(words(workout.activity)) · \(weekdayDay(Nights.day(of: workout.start, timeZone: data.timeZone))) \(clock(workout.start, data.timeZone))")),
                        .ul(
                            .li(.text("\(duration(workout.duration)) active")),
                            .forEach(workout.figures) { .li(.text($0)) },
                            .unwrap(workout.routeMeters) { .li(.text(String(format: "route %.2f km", $0 / 1000))) },
                            .forEach(workout.alternates) { .li(.class("alternate"), .text($0)) }
                        ),
                        .if(!workout.activities.isEmpty, .table(
                            .tr(.th("Activity"), .th("Time"), .th("Figures")),
                            .forEach(workout.activities) { activity in
                                .tr(.td(.text(words(activity.activity))), .td(.text(duration(activity.duration))), .td(.text(activity.figures.joined(separator: ", "))))
                            }
                        ))
                    ),
                    .if(workout.drawsRoute, canvas("route", index: index, height: 240))
                )
            }
        )
    }

    // MARK: The calendar

    struct Month: Hashable {
        var year: Int
        var month: Int
    }

    static func months(_ data: ReportData) -> [Month] {
        var seen: [Month] = []
        for day in data.days {
            let parts = day.split(separator: "-").compactMap { Int($0) }
            let month = Month(year: parts[0], month: parts[1])
            if seen.last != month { seen.append(month) }
        }
        return seen
    }

    static func calendar(month: Month, byDay: [String: CycleDay], data: ReportData) -> Node<HTML.BodyContext> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = data.timeZone
        let first = calendar.date(from: DateComponents(year: month.year, month: month.month, day: 1))!
        let count = calendar.range(of: .day, in: .month, for: first)!.count
        // Monday first.
        let lead = (calendar.component(.weekday, from: first) + 5) % 7
        let inPeriod = Set(data.days)
        var cells: [Node<HTML.TableRowContext>] = Array(repeating: .td(.class("blank")), count: lead)
        var rows: [Node<HTML.TableContext>] = []
        for dayNumber in 1...count {
            let key = String(format: "%04d-%02d-%02d", month.year, month.month, dayNumber)
            cells.append(dayCell(dayNumber, entry: byDay[key], inPeriod: inPeriod.contains(key)))
            if cells.count == 7 {
                rows.append(.tr(.group(cells)))
                cells = []
            }
        }
        if !cells.isEmpty {
            cells += Array(repeating: .td(.class("blank")), count: 7 - cells.count)
            rows.append(.tr(.group(cells)))
        }
        let name = DateFormatter()
        name.locale = Locale(identifier: "en_US_POSIX")
        name.timeZone = data.timeZone
        name.dateFormat = "MMMM yyyy"
        return .table(
            .class("calendar"),
            .caption(.text(name.string(from: first))),
            .tr(.forEach(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]) { .th(.text($0)) }),
            .group(rows)
        )
    }

    static func dayCell(_ number: Int, entry: CycleDay?, inPeriod: Bool) -> Node<HTML.TableRowContext> {
        var classes = inPeriod ? ["day"] : ["day", "outside"]
        var title: [String] = []
        if let flow = entry?.flow, flow != 5 {
            classes.append("f\(flow)")
            title.append("flow: \(CycleDay.flowName(flow))")
        }
        var marks: [Node<HTML.BodyContext>] = []
        if entry?.spotting == true {
            marks.append(.span(.class("mark spot"), .text("spotting")))
            title.append("spotting")
        }
        if let test = entry?.ovulationTest {
            let positive = test == 2 || test == 4
            marks.append(.span(.class(positive ? "mark lh" : "mark neg"), .text(CycleDay.ovulationName(test))))
            title.append("ovulation test: \(CycleDay.ovulationName(test))")
        }
        if let temperature = entry?.basalBodyTemperature {
            marks.append(.span(.class("bbt"), .text(String(format: "%.2f°", temperature))))
        }
        return .td(
            .class(classes.joined(separator: " ")),
            .attribute(named: "title", value: title.isEmpty ? nil : title.joined(separator: ", ")),
            .span(.class("number"), .text(String(number))),
            .group(marks)
        )
    }

    // MARK: Text

    /// "High intensity interval training" for "highIntensityIntervalTraining".
    static func words(_ name: String) -> String {
        var text = ""
        for character in name {
            if character.isUppercase, !text.isEmpty { text += " " + character.lowercased() } else { text.append(character) }
        }
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    static func weekdayDay(_ day: String) -> String {
        let parse = DateFormatter()
        parse.locale = Locale(identifier: "en_US_POSIX")
        parse.timeZone = TimeZone(identifier: "UTC")
        parse.dateFormat = "yyyy-MM-dd"
        guard let date = parse.date(from: day) else { return day }
        parse.dateFormat = "EEE d MMM"
        return parse.string(from: date)
    }

    static func clock(_ date: Date, _ zone: TimeZone) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = zone
        format.dateFormat = "HH:mm"
        return format.string(from: date)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        guard let total = Int(rounding: seconds) else { return "\(ReportNumbers.whole(seconds)) s" }
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    static func nightFigures(_ night: Night) -> String {
        var parts = ["asleep \(Nights.duration(night.secondsAsleep))"]
        for stage in [SleepStage.deep, .core, .rem, .awake] where night.intervals.contains(where: { $0.stage == stage }) {
            parts.append("\(stage.label) \(Nights.duration(night.seconds(in: stage)))")
        }
        return parts.joined(separator: " · ")
    }

    static func sleepSummary(_ nights: [Night]) -> String {
        guard !nights.isEmpty else { return "" }
        let asleep = nights.map(\.secondsAsleep)
        let average = asleep.reduce(0, +) / Double(asleep.count)
        return "\(nights.count) night\(nights.count == 1 ? "" : "s"), \(Nights.duration(average)) asleep on average. Newest first."
    }

    // MARK: The charts' data

    /// The JSON the page's script draws from: only what the charts show. `<` is escaped so that
    /// no text in it can end the script element.
    static func chartData(_ data: ReportData) -> String {
        func ms(_ date: Date) -> Int64 { Int64(clampingRounded: date.timeIntervalSince1970 * 1000) }
        let number = ReportNumbers.json
        let object: [String: Any] = [
            "timeZone": data.timeZone.identifier,
            "nights": data.nights.map { night in
                [
                    "start": ms(night.start), "end": ms(night.end),
                    "rows": night.stages.map(\.key),
                    "segments": night.intervals.map { [$0.stage.key, ms($0.start), ms($0.end)] as [Any] },
                ] as [String: Any]
            },
            "steps": [
                "label": data.wheelchairUse ? "Pushes" : "Steps",
                "days": data.steps.map(\.day),
                "values": data.steps.map { $0.value.map { number($0.rounded()) } ?? NSNull() },
                "goal": number(data.stepGoal),
            ] as [String: Any],
            "stand": [
                "label": data.wheelchairUse ? "Roll hours" : "Stand hours",
                "days": data.standHours.map(\.day),
                "hours": data.standHours.map(\.hours),
                "goal": data.standHours.map { number($0.goal) },
            ] as [String: Any],
            "heart": [
                "days": data.heartRate.map(\.day),
                "ranges": data.heartRate.map { day -> Any in
                    guard let minimum = day.minimum, let maximum = day.maximum else { return NSNull() }
                    return [number(minimum.rounded()), number(maximum.rounded())]
                },
                "resting": data.heartRate.map { $0.resting.map { number(($0 * 10).rounded() / 10) } ?? NSNull() },
            ] as [String: Any],
            "temperature": [
                "days": data.cycle.map(\.day),
                "values": data.cycle.map { $0.basalBodyTemperature.map { number(($0 * 100).rounded() / 100) } ?? NSNull() },
                "unit": data.temperatureUnit == "degF" ? "°F" : "°C",
            ] as [String: Any],
            "routes": data.workouts.map { $0.route.map { point in point.map { number(($0 * 1e6).rounded() / 1e6) } } },
        ]
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: json, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }

    static let css = """
        :root { color-scheme: light; --ink: #1f2933; --muted: #6b7280; --line: #e5e7eb; }
        * { box-sizing: border-box; }
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink);
               max-width: 980px; margin: 0 auto; padding: 24px 20px 60px; background: #fafafa; }
        header h1 { margin: 0; font-size: 28px; }
        .period { color: var(--muted); margin: 4px 0 12px; }
        section { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 16px 20px; margin: 18px 0; }
        h2 { margin: 0 0 6px; font-size: 20px; }
        h3 { margin: 12px 0 6px; font-size: 16px; }
        .summary, .empty { color: var(--muted); margin: 0 0 10px; }
        .chart { position: relative; width: 100%; }
        .nights { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); column-gap: 20px; }
        .night { border-top: 1px solid var(--line); padding: 6px 0; min-width: 0; }
        .night-title { display: flex; gap: 12px; align-items: baseline; }
        .night-title .figures { color: var(--muted); font-size: 13px; }
        table.calendar { border-collapse: collapse; margin: 8px 16px 12px 0; display: inline-table; vertical-align: top; }
        table.calendar caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
        table.calendar th { font-size: 12px; color: var(--muted); font-weight: 500; padding: 2px; }
        table.calendar td { width: 58px; height: 52px; border: 1px solid var(--line); vertical-align: top; padding: 2px 3px; font-size: 11px; }
        td.blank { border: none; }
        td.outside { color: #c0c4cc; }
        td .number { display: block; font-weight: 600; }
        td .mark { display: block; border-radius: 3px; padding: 0 2px; margin-top: 1px; font-size: 10px; }
        td .bbt { display: block; color: #7c3aed; font-size: 10px; }
        td.f4 .bbt { color: #fff; }
        .f1, .f2 { background: #fde2e4; } .f3 { background: #f9a8b4; } .f4 { background: #e11d48; color: #fff; }
        .mark.spot { background: #fecdd3; color: #9f1239; } .mark.lh { background: #bbf7d0; color: #166534; }
        .mark.neg { background: #f3f4f6; color: var(--muted); }
        .legend { display: flex; gap: 8px; flex-wrap: wrap; font-size: 12px; }
        .legend span { padding: 1px 6px; border-radius: 4px; }
        .legend .flow.f2 { background: #fde2e4; }
        .workout { display: flex; gap: 16px; border-top: 1px solid var(--line); padding: 8px 0; }
        .workout-text { flex: 1 1 auto; } .workout .chart { flex: 0 0 240px; width: 240px; }
        .workout ul { margin: 4px 0; padding-left: 18px; }
        .workout table { border-collapse: collapse; font-size: 13px; }
        .workout th, .workout td { text-align: left; padding: 2px 8px 2px 0; }
        """
}
