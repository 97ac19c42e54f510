import Foundation
import SalusTestSupport
import Testing

/// `salusctl report` on a month of a person's data (``ReportFixture``, imported as an Apple Health
/// export), rendered by headless Chromium; and the terminal pictures of `salusctl stats` and
/// `salusctl samples` under a pseudo-terminal (util-linux's `script`).
@Suite("salusctl report and the terminal pictures", .serialized)
struct ReportDaemonTests {
    static let chromium = DaemonHarness.findExecutable("chromium")
    static let script = DaemonHarness.findExecutable("script")
    static let chartLibrary = "/usr/share/javascript/chart.js/chart.min.js"

    static func ctl(_ daemon: DaemonHarness, _ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binDirectory.appendingPathComponent("salusctl"), arguments + ["--admin-socket", daemon.adminSocketPath],
            environment: ["TZ": "Europe/Paris"].merging(environment) { $1 }, timeout: .seconds(120))
    }

    /// A daemon holding the fixture month, its days counted in Europe/Paris.
    static func fixtureDaemon() async throws -> (DaemonHarness, URL) {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "report")
        let export = directory.appendingPathComponent("export.xml")
        try Data(ReportFixture.exportXML().utf8).write(to: export)
        let zone = try await ctl(daemon, ["summary", "goals", "--time-zone", "Europe/Paris"])
        #expect(zone.status == 0, "\(zone.output)")
        let imported = try await ctl(daemon, ["import", export.path])
        #expect(imported.status == 0, "\(imported.output)")
        return (daemon, directory)
    }

    /// The JSON block the page's charts draw from.
    static func chartData(_ html: String) throws -> [String: Any] {
        let open = try #require(html.range(of: "<script type=\"application/json\" id=\"salus-data\">"))
        let close = try #require(html.range(of: "</script>", range: open.upperBound..<html.endIndex))
        let text = String(html[open.upperBound..<close.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func report(_ daemon: DaemonHarness, into directory: URL, name: String) async throws -> String {
        let out = directory.appendingPathComponent(name)
        let result = try await ctl(daemon, ["report", "--since", ReportFixture.firstDay, "--until", ReportFixture.lastDay, "--out", out.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("wrote \(out.path): 2026-10-01 to 2026-10-28, 28 nights, 6 workouts"), "\(result.output)")
        // The page holds the person's data: the owner's alone, whatever the umask.
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "report mode \(String(mode ?? 0, radix: 8))")
        return try String(contentsOf: out, encoding: .utf8)
    }

    @Test(
        "the report of a month: a hypnogram per night, merged daily steps, heart-rate ranges, the cycle calendar and routes, drawn by Chromium without script errors",
        .enabled(if: chromium != nil, "needs Debian's chromium"),
        .enabled(if: FileManager.default.fileExists(atPath: chartLibrary), "needs Debian's libjs-chart.js"))
    func reportInChromium() async throws {
        let (daemon, directory) = try await Self.fixtureDaemon()
        let html = try await Self.report(daemon, into: directory, name: "report.html")

        // What the page shows, and the JSON and HTML it is drawn from, are AdminClientReportTests'
        // (in process); here the file the command wrote, as Chromium draws it.
        let data = try Self.chartData(html)
        let nights = try #require(data["nights"] as? [[String: Any]])
        #expect(nights.count == 28)
        // Self-contained: no address the browser would fetch.
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http"))

        // Chromium: no script error, and every canvas is a chart that drew its marks.
        let page = directory.appendingPathComponent("probed.html")
        try Data(Self.probed(html).utf8).write(to: page)
        let dump = try await Self.chromium(["--dump-dom", page.path])
        let probe = try Self.probeResult(dump.output)
        #expect(probe.errors.isEmpty, "script errors: \(probe.errors)")
        let charts = probe.charts
        let canvases = html.components(separatedBy: "<canvas").count - 1
        let reportPath = directory.appendingPathComponent("report.html").path
        #expect(canvases == 28 + 4 + 3)
        #expect(charts.count == canvases)
        for chart in charts {
            #expect(chart.drawn, "\(chart.kind) \(chart.index) has no chart")
            #expect(chart.marks > 0, "\(chart.kind) \(chart.index) drew no marks")
            #expect(chart.pixels > 200, "\(chart.kind) \(chart.index) painted \(chart.pixels) pixels")
        }
        // Each hypnogram has one bar per sleep sample of its night.
        for chart in charts where chart.kind == "night" {
            let night = nights[Int(chart.index)!]
            #expect(chart.marks == (night["segments"] as? [Any])?.count, "night \(chart.index)")
        }
        #expect(charts.first { $0.kind == "steps" }?.marks == 28 * 2)

        // The picture a person sees.
        let png = directory.appendingPathComponent("report.png")
        let shot = try await Self.chromium(["--screenshot=\(png.path)", "--window-size=1100,5600", reportPath])
        let size = (try? FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
        #expect(size > 50_000, "\(shot.output)")
        if let keep = ProcessInfo.processInfo.environment["SALUS_REPORT_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: png.path, toPath: keep)
        }
        #expect(try await daemon.stop() == 0)
    }

    @Test("report refuses a backwards period and a missing Chart.js, naming the option, and writes nothing")
    func reportRefusals() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "report-refusals")
        let out = directory.appendingPathComponent("r.html").path
        let backwards = try await Self.ctl(daemon, ["report", "--since", "2026-10-10", "--until", "2026-10-01", "--out", out])
        #expect(backwards.status != 0)
        #expect(backwards.output.contains("--until: 2026-10-01 is before --since 2026-10-10"), "\(backwards.output)")
        let missing = try await Self.ctl(daemon, ["report", "--chart-js", "/nonexistent/chart.js", "--out", out])
        #expect(missing.status != 0)
        #expect(missing.output.contains("--chart-js: cannot read /nonexistent/chart.js"), "\(missing.output)")
        let goal = try await Self.ctl(daemon, ["report", "--step-goal=-5", "--out", out])
        #expect(goal.output.contains("--step-goal: -5.0 is not valid"), "\(goal.output)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try await daemon.stop() == 0)
    }

    @Test(
        "at a terminal, stats draws a bar per day and samples a hypnogram per night; NO_COLOR drops the colours; piped output stays plain",
        .enabled(if: script != nil, "needs util-linux's script for a pseudo-terminal"))
    func terminalPictures() async throws {
        let (daemon, _) = try await Self.fixtureDaemon()
        let salusctl = DaemonHarness.binDirectory.appendingPathComponent("salusctl").path
        func atTerminal(_ arguments: String, noColor: Bool = false) async throws -> String {
            // NO_COLOR set or unset whatever the test runner's environment holds.
            let command = "env \(noColor ? "NO_COLOR=1" : "-u NO_COLOR") \(salusctl) \(arguments) --admin-socket \(daemon.adminSocketPath)"
            let result = try await DaemonHarness.run(
                Self.script!, ["-qfc", command, "/dev/null"],
                environment: ["TZ": "Europe/Paris", "COLUMNS": "160", "TERM": "xterm-256color"],
                timeout: .seconds(60))
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        let colour = "\u{1B}[38;5;"
        let stats = "stats stepCount --interval day --since 2026-10-01 --until 2026-10-07"
        let coloured = try await atTerminal(stats)
        let rows = coloured.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("2026-10-0") }
        #expect(rows.count == 7, "\(coloured)")
        #expect(rows.allSatisfy { $0.contains("█") && $0.contains(colour) }, "\(coloured)")
        // The longest bar is the largest total: 30 full blocks.
        #expect(rows.contains { $0.contains(String(repeating: "█", count: 30)) })
        let plain = try await atTerminal(stats, noColor: true)
        #expect(plain.contains("█") && !plain.contains("\u{1B}["), "\(plain)")
        let piped = try await Self.ctl(daemon, stats.split(separator: " ").map(String.init))
        #expect(piped.status == 0 && !piped.output.contains("█") && !piped.output.contains("\u{1B}["), "\(piped.output)")

        let sleep = "samples sleepAnalysis --since 2026-10-02T12:00 --until 2026-10-04T12:00"
        let nights = try await atTerminal(sleep)
        let lines = nights.split(whereSeparator: \.isNewline).filter { $0.contains("asleep ") && $0.contains("deep ") }
        #expect(lines.count == 2, "\(nights)")
        #expect(lines.first?.contains("2026-10-03") == true && lines.last?.contains("2026-10-04") == true, "\(nights)")
        #expect(lines.allSatisfy { $0.contains("▂") && $0.contains("▄") && $0.contains(colour) })
        let pipedSleep = try await Self.ctl(daemon, sleep.split(separator: " ").map(String.init))
        #expect(!pipedSleep.output.contains("Nights") && !pipedSleep.output.contains("▂"), "\(pipedSleep.output)")
        #expect(try await daemon.stop() == 0)
    }

    // MARK: Chromium

    static func chromium(_ arguments: [String]) async throws -> CommandResult {
        let home = try DaemonHarness.makeTemporaryDirectory(prefix: "chromium")
        return try await DaemonHarness.run(
            chromium!,
            ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
             "--user-data-dir=\(home.path)", "--virtual-time-budget=5000"] + arguments,
            environment: ["HOME": home.path], timeout: .seconds(120))
    }

    /// The page with a probe: an error listener first in `<head>`, and at the end of `<body>` a
    /// script that writes, per canvas, whether Chart.js made a chart of it, how many marks its
    /// datasets have at finite positions, and how many pixels it painted.
    static func probed(_ html: String) -> String {
        let listen = "<script>window.__errors=[];window.addEventListener('error',function(e){window.__errors.push(String(e.message))});</script>"
        let probe = """
            <script>(function(){var out=[];
            document.querySelectorAll('canvas[data-chart]').forEach(function(c){
              var chart=window.Chart&&Chart.getChart(c);var r={kind:c.dataset.chart,index:c.dataset.index||'',drawn:!!chart,marks:0,pixels:0,datasets:[],yLabels:[],height:c.height};
              if(chart){r.datasets=chart.data.datasets.map(function(d){return String(d.label);});
                if(chart.scales.y)r.yLabels=chart.scales.y.ticks.map(function(t){return String(t.label);});
                chart.data.datasets.forEach(function(d,i){chart.getDatasetMeta(i).data.forEach(function(e){
                if(isFinite(e.x)&&isFinite(e.y)&&!e.skip)r.marks++;});});
                var img=c.getContext('2d').getImageData(0,0,c.width,c.height).data;for(var i=3;i<img.length;i+=4){if(img[i]>0)r.pixels++;}}
              out.push(r);});
            var pre=document.createElement('pre');pre.id='probe';pre.textContent=JSON.stringify({errors:window.__errors,charts:out});
            document.body.appendChild(pre);})();</script>
            """
        return html.replacingOccurrences(of: "<head>", with: "<head>" + listen)
            .replacingOccurrences(of: "</body>", with: probe + "</body>")
    }

    struct ProbedChart: Decodable {
        var kind: String
        var index: String
        var drawn: Bool
        var marks: Int
        var pixels: Int
        /// The datasets' labels (the legend's entries).
        var datasets: [String]
        /// The labels the y axis shows.
        var yLabels: [String]
        var height: Int
    }

    struct Probe: Decodable {
        var errors: [String]
        var charts: [ProbedChart]
    }

    static func probeResult(_ dom: String) throws -> Probe {
        let open = try #require(dom.range(of: "<pre id=\"probe\">"), "Chromium's DOM has no probe: \(dom.suffix(2000))")
        let close = try #require(dom.range(of: "</pre>", range: open.upperBound..<dom.endIndex))
        let text = String(dom[open.upperBound..<close.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Probe.self, from: Data(text.utf8))
    }
}
