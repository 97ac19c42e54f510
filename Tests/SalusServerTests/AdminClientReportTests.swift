import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusReport
import SalusTestSupport
import Testing

/// The report's data through the owner's client in process, what `salusctl report` renders: the
/// fixture month (``ReportFixture``, imported as an Apple Health export) in Europe/Paris. The
/// page itself in Chromium, the file and the command's line are ReportDaemonTests'.
@Suite("AdminClient: the report's data")
struct AdminClientReportTests {
    static let zone = ReportFixture.timeZone

    /// Midnight of `day` (1-based, October 2026) in Europe/Paris.
    static func midnight(_ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: 2026, month: 10, day: day))!
    }

    /// A server holding the fixture month, the person's days counted in Europe/Paris.
    static func fixture() async throws -> (ServerHarness, AdminClient) {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        _ = try await admin.setActivitySettings(timeZone: zone.identifier)
        let export = Data(ReportFixture.exportXML().utf8)
        let events = try await AdminClientImportTests.events(admin, export, sideFiles: [], options: ImportOptions(exportBytes: UInt64(export.count)))
        guard case .report? = events.last else {
            Issue.record("the import ended without its report: \(String(describing: events.last))")
            return (server, admin)
        }
        return (server, admin)
    }

    /// The JSON block the page's charts draw from.
    static func chartData(_ html: String) throws -> [String: Any] {
        let open = try #require(html.range(of: "<script type=\"application/json\" id=\"salus-data\">"))
        let close = try #require(html.range(of: "</script>", range: open.upperBound..<html.endIndex))
        return try #require(try JSONSerialization.jsonObject(with: Data(html[open.upperBound..<close.lowerBound].utf8)) as? [String: Any])
    }

    static func month(_ admin: AdminClient) async throws -> ReportData {
        try await admin.reportData(from: midnight(1), to: midnight(29), timeZone: zone, stepGoal: 10_000)
    }

    @Test("a month: a night per day, merged daily steps as statistics serves them, heart-rate ranges, stand hours, the cycle calendar, six workouts with their figures, legs and routes; the page drawn from them")
    func month() async throws {
        let (server, admin) = try await Self.fixture()
        var sections: [String] = []
        let data = try await admin.reportData(
            from: Self.midnight(1), to: Self.midnight(29), timeZone: Self.zone, stepGoal: 10_000, progress: { sections.append($0) })
        #expect(sections == ["sleep", "steps", "heart rate", "activity", "cycle tracking", "workouts"])
        #expect(data.days.count == 28 && data.days.first == ReportFixture.firstDay && data.days.last == ReportFixture.lastDay)
        #expect(!data.wheelchairUse)
        #expect(data.showsData)

        #expect(data.nights.count == 28)
        #expect(Set(data.nights.map(\.day)) == Set(data.days))

        // The daily merged steps, the same numbers statistics serves (watch and phone not added up).
        let daily = try await admin.statisticsCollection(
            of: "HKQuantityTypeIdentifierStepCount", options: .cumulativeSum, unit: "count", interval: .day,
            from: Self.midnight(1), to: Self.midnight(29), timeZone: Self.zone)
        #expect(data.steps.map(\.day) == data.days)
        #expect(data.steps.map(\.value) == daily.map(\.values.sum))
        #expect(data.steps.allSatisfy { ($0.value ?? 0) > 3000 })

        #expect(data.heartRate.count == 28)
        #expect(data.heartRate.allSatisfy { day in
            guard let low = day.minimum, let high = day.maximum, let resting = day.resting else { return false }
            return low <= resting && low < high
        }, "\(data.heartRate.prefix(3))")
        #expect(data.standHours.count == 28 && data.standHours.contains { $0.hours > 0 })

        // The calendar: heavy flow on 5 and 6 October, spotting on the 18th, the LH surge on the
        // 16th with negative tests around it; a basal body temperature each day.
        let cycle = Dictionary(uniqueKeysWithValues: data.cycle.map { ($0.day, $0) })
        #expect(cycle["2026-10-05"]?.flow == 4 && cycle["2026-10-06"]?.flow == 4)
        #expect(cycle["2026-10-18"]?.spotting == true && cycle["2026-10-18"]?.ovulationTest == 1)
        #expect(cycle["2026-10-16"]?.ovulationTest == 2)
        #expect(data.cycle.allSatisfy { $0.basalBodyTemperature.map { $0 > 35 && $0 < 38 } ?? false })

        // Workouts: the export's totals where the store has no samples (distance, energy), the
        // heart rate computed from the samples; the triathlon's legs with their own distances.
        #expect(data.workouts.map(\.activity) == ["running", "cycling", "swimBikeRun", "swimming", "highIntensityIntervalTraining", "running"])
        #expect(data.workouts.filter { !$0.route.isEmpty }.count == 3)
        #expect(data.workouts.filter { $0.routeMeters != nil }.count == 3)
        let run = try #require(data.workouts.last)
        #expect(run.start >= Self.midnight(25) && run.start < Self.midnight(26))
        #expect(run.duration == 42 * 60)
        #expect(Array(run.figures.prefix(2)) == ["8.60 km running", "378 kcal active"], "\(run.figures)")
        #expect(run.figures.contains { $0.hasPrefix("average heart rate 1") }, "\(run.figures)")
        let triathlon = data.workouts[2]
        #expect(triathlon.activities.map(\.activity) == ["swimming", "transition", "cycling", "transition", "running"])
        let swim = try #require(triathlon.activities.first { $0.activity == "swimming" })
        let ride = try #require(triathlon.activities.first { $0.activity == "cycling" })
        #expect(swim.duration == 20 * 60 && swim.figures.first == "0.75 km swimming", "\(swim)")
        #expect(ride.duration == 30 * 60 && ride.figures.first == "20.00 km cycling", "\(ride)")
        #expect([swim, ride].allSatisfy { $0.figures.contains { $0.hasPrefix("average heart rate ") } })

        // The page drawn from them (Chromium draws it in ReportDaemonTests).
        let html = ReportPage.render(data, chartLibrary: "")
        let chart = try Self.chartData(html)
        #expect((chart["nights"] as? [Any])?.count == 28)
        let steps = try #require(chart["steps"] as? [String: Any])
        #expect(steps["label"] as? String == "Steps")
        #expect(steps["values"] as? [Double] == daily.map { ($0.values.sum ?? -1).rounded() })
        #expect((chart["routes"] as? [[[Double]]])?.filter { !$0.isEmpty }.count == 3)
        let has = { (text: String) in html.contains(text) }
        #expect(has("<h2>Steps</h2>") && has("<h2>Stand hours</h2>") && !has("Pushes"))
        #expect(has("<h3>Running · Sun 25 Oct 18:10</h3><ul><li>42:00 active</li><li>8.60 km running</li><li>378 kcal active</li><li>average heart rate 1"))
        #expect(has("<tr><td>Swimming</td><td>20:00</td><td>0.75 km swimming, average heart rate "))
        #expect(has("<tr><td>Cycling</td><td>30:00</td><td>20.00 km cycling, average heart rate "))
        #expect(has("<h3>High intensity interval training · "))
        #expect(has("<td class=\"day f4\" title=\"flow: heavy\"><span class=\"number\">5</span>"))
        #expect(has("<td class=\"day f4\" title=\"flow: heavy\"><span class=\"number\">6</span>"))
        #expect(has("title=\"spotting, ovulation test: negative\"><span class=\"number\">18</span>"))
        #expect(has("title=\"ovulation test: LH surge\"><span class=\"number\">16</span>"))
        #expect(!has("src=\"http") && !has("href=\"http"))
        await admin.close()
        await server.stop()
    }

    @Test("a wheelchair user's report sums pushes where others see steps, and the page says Pushes and Roll hours")
    func wheelchairUser() async throws {
        let (server, admin) = try await Self.fixture()
        let before = try await Self.month(admin)
        _ = try await admin.setCharacteristic("HKCharacteristicTypeIdentifierWheelchairUse", to: .enumeration(WheelchairUse.yes))
        var sections: [String] = []
        let after = try await admin.reportData(
            from: Self.midnight(1), to: Self.midnight(29), timeZone: Self.zone, stepGoal: 10_000, progress: { sections.append($0) })
        #expect(after.wheelchairUse)
        #expect(sections.contains("pushes") && !sections.contains("steps"))
        let pushes = after.steps.compactMap(\.value)
        #expect(pushes.count == 28 && pushes != before.steps.compactMap(\.value))
        #expect(pushes.allSatisfy { $0 > 1000 && $0 < 7000 }, "\(pushes)")
        let daily = try await admin.statisticsCollection(
            of: "HKQuantityTypeIdentifierPushCount", options: .cumulativeSum, unit: "count", interval: .day,
            from: Self.midnight(1), to: Self.midnight(29), timeZone: Self.zone)
        #expect(after.steps.map(\.value) == daily.map(\.values.sum))

        let html = ReportPage.render(after, chartLibrary: "")
        let chart = try #require(try Self.chartData(html)["steps"] as? [String: Any])
        #expect(chart["label"] as? String == "Pushes")
        #expect((chart["values"] as? [Double])?.count == 28)
        #expect(html.contains("<h2>Pushes</h2>") && html.contains("<h2>Roll hours</h2>"))
        #expect(!html.contains("<h2>Steps</h2>") && !html.contains("<h2>Stand hours</h2>"))
        await admin.close()
        await server.stop()
    }

    @Test("a period with nothing in it shows no data; the types the report reads name where to look")
    func emptyPeriod() async throws {
        let (server, admin) = try await Self.fixture()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone
        let from = calendar.date(from: DateComponents(year: 2025, month: 1, day: 1))!
        let data = try await admin.reportData(from: from, to: calendar.date(byAdding: .day, value: 7, to: from)!, timeZone: Self.zone, stepGoal: 10_000)
        #expect(!data.showsData)
        #expect(data.days.count == 7 && data.nights.isEmpty && data.workouts.isEmpty)
        let range = try #require(try await admin.sampleRange(of: AdminClient.reportTypes(wheelchairUse: false)))
        #expect(range.start < Self.midnight(1) && range.start > Self.midnight(1).addingTimeInterval(-86_400))
        #expect(range.end > Self.midnight(28) && range.end <= Self.midnight(29))
        await admin.close()
        await server.stop()
    }
}
