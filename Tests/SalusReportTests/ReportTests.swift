import Foundation
import SalusReport
import Testing

@Suite("Nights, bars and hypnograms")
struct ReportTests {
    let paris = TimeZone(identifier: "Europe/Paris")!

    func at(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!
    }

    func interval(_ stage: SleepStage, _ start: String, _ end: String) -> StageInterval {
        StageInterval(stage: stage, start: at(start), end: at(end))
    }

    @Test("sleep samples less than 3 h apart are one night, named after the local day it ended on")
    func nightsByGap() {
        let intervals = [
            interval(.core, "2026-10-01T21:30:00Z", "2026-10-01T23:00:00Z"),  // 23:30–01:00 in Paris
            interval(.awake, "2026-10-02T01:30:00Z", "2026-10-02T02:00:00Z"),  // a 2.5 h gap: the same night
            interval(.deep, "2026-10-01T23:00:00Z", "2026-10-02T00:00:00Z"),
            interval(.rem, "2026-10-02T13:00:00Z", "2026-10-02T13:40:00Z"),  // a nap: its own "night"
            interval(.core, "2026-10-02T20:00:00Z", "2026-10-03T04:00:00Z"),
        ]
        let nights = Nights.group(intervals, timeZone: paris)
        #expect(nights.map(\.day) == ["2026-10-02", "2026-10-02", "2026-10-03"])
        #expect(nights[0].start == at("2026-10-01T21:30:00Z") && nights[0].end == at("2026-10-02T02:00:00Z"))
        #expect(nights[0].intervals.map(\.stage) == [.core, .deep, .awake])
        #expect(nights[0].stages == [.awake, .core, .deep])
        // Ending before local midnight names the same day.
        let evening = Nights.group([interval(.core, "2026-10-05T20:00:00Z", "2026-10-05T21:30:00Z")], timeZone: paris)
        #expect(evening.map(\.day) == ["2026-10-05"])
        #expect(Nights.group([interval(.core, "2026-10-05T20:00:00Z", "2026-10-05T20:00:00Z")], timeZone: paris).isEmpty)
    }

    @Test("time in a stage counts overlapping samples of two sources once; asleep is every sleep stage")
    func stageTotals() {
        let night = Nights.group([
            interval(.inBed, "2026-10-01T21:00:00Z", "2026-10-02T05:00:00Z"),
            interval(.core, "2026-10-01T21:30:00Z", "2026-10-01T23:00:00Z"),
            interval(.core, "2026-10-01T22:30:00Z", "2026-10-01T23:30:00Z"),  // another source, overlapping by 30 min
            interval(.deep, "2026-10-01T23:30:00Z", "2026-10-02T00:30:00Z"),
            interval(.awake, "2026-10-02T00:30:00Z", "2026-10-02T00:40:00Z"),
            interval(.rem, "2026-10-02T00:40:00Z", "2026-10-02T01:40:00Z"),
        ], timeZone: paris)[0]
        #expect(night.seconds(in: .core) == 2 * 3600)
        #expect(night.seconds(in: .deep) == 3600)
        #expect(night.seconds(in: .awake) == 600)
        #expect(night.secondsAsleep == 4 * 3600)  // 21:30–00:30 and 00:40–01:40
        #expect(night.seconds(in: .inBed) == 8 * 3600)
        // Where a staged sample and in bed overlap, the stage shows; awake shows over any sleep stage.
        #expect(night.stage(at: at("2026-10-01T21:10:00Z")) == .inBed)
        #expect(night.stage(at: at("2026-10-01T22:00:00Z")) == .core)
        #expect(night.stage(at: at("2026-10-02T00:35:00Z")) == .awake)
        #expect(night.stage(at: at("2026-10-02T06:00:00Z")) == nil)
        #expect(Nights.duration(night.secondsAsleep) == "4h00")
    }

    @Test("a bar is value/maximum of the width in eighths, padded to the width; nothing for no value")
    func bars() {
        #expect(TerminalBars.bar(10, maximum: 10, width: 4) == "████")
        #expect(TerminalBars.bar(5, maximum: 10, width: 4) == "██  ")
        #expect(TerminalBars.bar(1, maximum: 16, width: 2) == "▏ ")
        #expect(TerminalBars.bar(3, maximum: 16, width: 2) == "▍ ")
        #expect(TerminalBars.bar(13, maximum: 16, width: 2) == "█▋")
        #expect(TerminalBars.bar(nil, maximum: 16, width: 3) == "   " && TerminalBars.bar(0, maximum: 16, width: 3) == "   ")
        #expect(TerminalBars.bar(40, maximum: 16, width: 3) == "███")
    }

    @Test("colours only at a terminal without NO_COLOR (empty NO_COLOR does not count) and not for TERM=dumb")
    func styles() {
        #expect(TerminalStyle(isTerminal: true, environment: [:]) == TerminalStyle(graphics: true, colours: true))
        #expect(TerminalStyle(isTerminal: true, environment: ["NO_COLOR": "1"]) == TerminalStyle(graphics: true, colours: false))
        #expect(TerminalStyle(isTerminal: true, environment: ["NO_COLOR": ""]).colours)
        #expect(!TerminalStyle(isTerminal: true, environment: ["TERM": "dumb"]).colours)
        #expect(TerminalStyle(isTerminal: false, environment: [:]) == TerminalStyle(graphics: false, colours: false))
        let style = TerminalStyle(graphics: true, colours: true)
        #expect(style.paint("ab", .green) == "\u{1B}[38;5;35mab\u{1B}[0m")
        #expect(TerminalStyle(graphics: true, colours: false).paint("ab", .green) == "ab")
    }

    @Test("a one-line hypnogram: each column the stage at its middle, runs coloured by stage")
    func hypnogramLine() {
        let night = Nights.group([
            interval(.core, "2026-10-01T22:00:00Z", "2026-10-01T23:00:00Z"),
            interval(.deep, "2026-10-01T23:00:00Z", "2026-10-02T01:00:00Z"),
            interval(.rem, "2026-10-02T01:00:00Z", "2026-10-02T01:30:00Z"),
            interval(.awake, "2026-10-02T01:30:00Z", "2026-10-02T02:00:00Z"),
        ], timeZone: paris)[0]
        let plain = TerminalStyle(graphics: true, colours: false)
        #expect(TerminalHypnogram.strip(night, width: 8, style: plain) == "▄▄▂▂▂▂▆█")
        let coloured = TerminalHypnogram.strip(night, width: 8, style: TerminalStyle(graphics: true, colours: true))
        #expect(coloured.components(separatedBy: "\u{1B}[38;5;").count - 1 == 4)
        let line = TerminalHypnogram.line(night, width: 8, timeZone: paris, style: plain)
        #expect(line == "Fri 2026-10-02  00:00 ▄▄▂▂▂▂▆█ 04:00  asleep 3h30, deep 2h00, core 1h00, REM 0h30, awake 0h30")
    }

    @Test("a route keeps at most 400 points, the first and the last among them")
    func thinnedRoute() {
        let points = (0..<1001).map { [Double($0), 0] }
        let thinned = WorkoutEntry.thinned(points)
        #expect(thinned.count == WorkoutEntry.maximumRoutePoints)
        #expect(thinned.first == [0, 0] && thinned.last == [1000, 0])
        #expect(WorkoutEntry.thinned(Array(points.prefix(10))).count == 10)
    }

    @Test("the page's data cannot end its script element, and a report without data says so per section")
    func pageEscapesAndEmptySections() {
        var data = ReportData(
            from: at("2026-09-30T22:00:00Z"), to: at("2026-10-02T22:00:00Z"), timeZone: paris, generated: at("2026-10-03T08:00:00Z"),
            wheelchairUse: false, stepGoal: 8000)
        data.workouts = [WorkoutEntry(start: at("2026-10-01T16:00:00Z"), end: at("2026-10-01T17:00:00Z"), activity: "</script><b>x", duration: 3600, figures: [])]
        let html = ReportPage.render(data, chartLibrary: "window.Chart = function () {};")
        #expect(!html.contains("</script><b>"))
        #expect(html.contains("&lt;/script&gt;&lt;b&gt;x"))
        for text in ["No sleep recorded", "No steps recorded", "No heart rate recorded", "No cycle tracking recorded", "No stand hours recorded"] {
            #expect(html.contains(text), "\(text)")
        }
        #expect(!html.contains("<canvas"))
        #expect(data.days == ["2026-10-01", "2026-10-02"])
    }
}
