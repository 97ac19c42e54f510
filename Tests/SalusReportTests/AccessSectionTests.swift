import Foundation
import SalusReport
import Testing

/// The report's "Who used your data": the access log's sentences, escaped, or a line saying
/// there is nothing.
@Suite("The report's access section")
struct AccessSectionTests {
    static let day = Date(timeIntervalSince1970: 1_790_000_000)

    static func data(_ lines: [String]) -> ReportData {
        var data = ReportData(
            from: day, to: day.addingTimeInterval(86_400), timeZone: TimeZone(identifier: "UTC")!, generated: day,
            wheelchairUse: false, stepGoal: 10_000)
        data.accessLines = lines
        return data
    }

    @Test("each sentence is a list item, markup in an app id escaped; no accesses say so")
    func section() {
        let page = ReportPage.render(
            Self.data(["org.example.fit read heart rate twice today, last at 14:07, through a sample query", "org.<b>x</b> wrote step count once today, last at 14:00"]),
            chartLibrary: "")
        #expect(page.contains("<h2>Who used your data</h2>"))
        #expect(page.contains("<li>org.example.fit read heart rate twice today, last at 14:07, through a sample query</li>"))
        #expect(page.contains("org.&lt;b&gt;x&lt;/b&gt; wrote step count"))
        #expect(!page.contains("<b>x</b>"))
        let empty = ReportPage.render(Self.data([]), chartLibrary: "")
        #expect(empty.contains("No app read or wrote anything in this period that the access log still holds."))
    }
}
