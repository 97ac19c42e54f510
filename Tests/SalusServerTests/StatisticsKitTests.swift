import Foundation
import SalusServer
import SalusProto
import SalusKit
import SalusModel
import SalusRPC
import SalusTestSupport
import Testing

/// SalusKit's statistics descriptors, in process: the phone and watch fixture of
/// docs/statistics.md saved by two apps, read by a third.
@Suite("SalusKit statistics")
struct StatisticsKitTests: UsesStatisticsWalk {
    /// Phone 3000 steps 09:00–10:00 and 1200 steps 18:00–18:30 on the 20th; watch 2400 steps
    /// 09:30–10:30 and 600 steps 23:30–00:30 across midnight; the watch ranks first.
    static func fixture(_ server: ServerHarness) async throws -> (phone: HealthStore, watch: HealthStore) {
        let phone = try await HealthStoreTests.store(server, Self.phone)
        let watch = try await HealthStoreTests.store(server, Self.watch)
        try await phone.save(StatisticsWalk.phoneWalks.map(\.sample))
        try await watch.save(StatisticsWalk.watchWalks.map(\.sample))
        try await priority(server, [Self.watch, Self.phone])
        return (phone, watch)
    }

    /// Sets the step count's source priority as the owner (`salusctl priority set stepCount SOURCE…`).
    static func priority(_ server: ServerHarness, _ sources: [String]) async throws {
        let owner = try await server.owner()
        var request = Salus_V1_SourcePriority()
        request.type = "HKQuantityTypeIdentifierStepCount"
        request.sources = sources
        let set: Salus_V1_SourcePriority = try await owner.unary(SalusMethods.Statistics.setSourcePriority, request: request)
        #expect(set.sources == sources)
        await owner.close()
    }

    static func daily(anchor: Date = paris(20)) -> StatisticsCollectionQueryDescriptor {
        StatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: .stepCount), options: .cumulativeSum, anchorDate: anchor,
            intervalComponents: DateComponents(day: 1), timeZone: paris)
    }

    static func sums(_ statistics: [Statistics]) -> [Double?] {
        statistics.map { $0.sumQuantity()?.value }
    }

    @Test("a statistics query gives the merged sum, each source's own sum and the merged duration")
    func statistics() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let (phone, watch) = try await Self.fixture(server)
        let reader = try await HealthStoreTests.store(server, "org.example.reader")

        let day = DateInterval(start: Self.paris(20), end: Self.paris(21))
        let query = StatisticsQueryDescriptor(
            predicate: .quantitySample(type: .stepCount), options: [.cumulativeSum, .separateBySource, .duration], window: day)
        let statistics = try await query.result(for: reader)
        // Watch first: phone 09:00–09:30 1500 + watch 2400 + phone 1200 + watch 23:30–24:00 300.
        #expect(statistics.sumQuantity() == Quantity(value: 5400, unit: .count))
        #expect(statistics.unit == .count)
        #expect(statistics.startDate == day.start && statistics.endDate == day.end)
        #expect(statistics.sources == [Self.phone, Self.watch])
        // Each source alone: phone 3000 + 1200; watch 2400 + half of 600.
        #expect(statistics.sumQuantity(for: Self.phone)?.value == 4200)
        #expect(statistics.sumQuantity(for: Self.watch)?.value == 2700)
        // Some source counts 09:00–10:30, 18:00–18:30 and 23:30–24:00: 150 minutes.
        #expect(statistics.duration() == Quantity(value: 9000, unit: .second))
        #expect(statistics.averageQuantity() == nil)

        // The phone first: 3000 + watch 10:00–10:30 1200 + 1200 + 300.
        try await Self.priority(server, [Self.phone, Self.watch])
        #expect(try await query.result(for: reader).sumQuantity()?.value == 5700)

        // Nothing matches: empty statistics over the window, not an error.
        let empty = try await StatisticsQueryDescriptor(
            predicate: .quantitySample(type: .stepCount), options: .cumulativeSum,
            window: DateInterval(start: Self.paris(1), end: Self.paris(2))
        ).result(for: reader)
        #expect(empty.isEmpty)
        #expect(empty.sumQuantity() == nil)
        #expect(empty.startDate == Self.paris(1))

        for store in [phone, watch, reader] { await store.close() }
        await server.stop()
    }

    @Test("discrete statistics: time-weighted average, minimum, maximum and the most recent value with its interval, in the unit asked for")
    func discrete() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let band = try await HealthStoreTests.store(server, "org.example.band")
        // 60 bpm at 00:00, 90 at 00:05, 120 at 00:30: (60·5 + 90·10 + 120·10) / 25 = 96 (docs/statistics.md).
        try await band.save([(60.0, 0), (90, 5), (120, 30)].map { value, minute in
            .quantity(.heartRate, Quantity(value: value, unit: .countPerMinute), start: Self.paris(20, 0, minute))
        })
        let statistics = try await StatisticsQueryDescriptor(
            predicate: .quantitySample(type: .heartRate), options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent],
            unit: .countPerMinute
        ).result(for: band)
        #expect(statistics.unit == .countPerMinute)
        #expect(abs((statistics.averageQuantity()?.value ?? 0) - 96) < 1e-9, "\(String(describing: statistics.averageQuantity()))")
        #expect(statistics.minimumQuantity() == Quantity(value: 60, unit: .countPerMinute))
        #expect(statistics.maximumQuantity()?.value == 120)
        #expect(statistics.mostRecentQuantity()?.value == 120)
        #expect(statistics.mostRecentQuantityDateInterval() == DateInterval(start: Self.paris(20, 0, 30), duration: 0))
        #expect(statistics.sumQuantity() == nil)
        let perSecond = try await StatisticsQueryDescriptor(
            predicate: .quantitySample(type: .heartRate), options: .discreteMax, unit: .countPerSecond
        ).result(for: band)
        #expect(perSecond.maximumQuantity() == Quantity(value: 2, unit: .countPerSecond))
        await band.close()
        await server.stop()
    }

    @Test("a daily collection: merged totals per day with empty days present, statistics(for:), enumerate beyond the range, re-ranked by priority")
    func collection() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let (phone, watch) = try await Self.fixture(server)
        let reader = try await HealthStoreTests.store(server, "org.example.reader")

        let week = try await Self.daily().result(for: reader, from: Self.paris(20), to: Self.paris(23))
        #expect(Self.sums(week.statistics()) == [5400, 300, nil])
        #expect(week.statistics().map(\.startDate) == [Self.paris(20), Self.paris(21), Self.paris(22)])
        #expect(week.statistics()[1].sources == [Self.watch])
        #expect(week.sources() == [Self.phone, Self.watch])
        #expect(week.statistics(for: Self.paris(21, 12))?.sumQuantity()?.value == 300)
        #expect(week.statistics(for: Self.paris(23, 12)) == nil)
        var enumerated: [(Date, Double?)] = []
        week.enumerateStatistics(from: Self.paris(19, 12), to: Self.paris(21, 1)) { statistics, _ in
            enumerated.append((statistics.startDate, statistics.sumQuantity()?.value))
        }
        #expect(enumerated.map(\.0) == [Self.paris(19), Self.paris(20), Self.paris(21)])
        #expect(enumerated.map(\.1) == [nil, 5400, 300])

        // An anchor days before the range: intervals extend from it without gaps.
        let earlier = try await Self.daily(anchor: Self.paris(2)).result(for: reader, from: Self.paris(20, 12), to: Self.paris(21, 12))
        #expect(Self.sums(earlier.statistics()) == [5400, 300])

        try await Self.priority(server, [Self.phone])
        #expect(Self.sums(try await Self.daily().result(for: reader, from: Self.paris(20), to: Self.paris(23)).statistics()) == [5700, 300, nil])

        // Hours: 18:00–18:30 is the phone's 1200 alone.
        var hourly = Self.daily()
        hourly.intervalComponents = DateComponents(hour: 1)
        let evening = try await hourly.result(for: reader, from: Self.paris(20, 18), to: Self.paris(20, 20))
        #expect(Self.sums(evening.statistics()) == [1200, nil])

        for store in [phone, watch, reader] { await store.close() }
        await server.stop()
    }

    @Test("a live collection sends every day, then only the day a save or a delete changed, with the merged collection; cancelling ends it")
    func live() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let (phone, watch) = try await Self.fixture(server)
        let reader = try await HealthStoreTests.store(server, "org.example.reader")

        var updates = Self.daily().results(for: reader, from: Self.paris(20), to: Self.paris(23)).makeAsyncIterator()
        let initial = try #require(try await updates.next())
        #expect(initial.isInitial)
        #expect(Self.sums(initial.updatedStatistics) == [5400, 300, nil])
        #expect(initial.statisticsCollection.statistics() == initial.updatedStatistics)

        // 1000 steps at noon on the 22nd: only the 22nd is sent.
        let noon = try await phone.save(Self.steps(1000, Self.paris(22, 12), Self.paris(22, 12, 10)))
        let added = try #require(try await updates.next())
        #expect(!added.isInitial)
        #expect(added.updatedStatistics.map(\.startDate) == [Self.paris(22)])
        #expect(Self.sums(added.updatedStatistics) == [1000])
        #expect(added.updatedStatistics.first?.sources == [Self.phone])
        #expect(Self.sums(added.statisticsCollection.statistics()) == [5400, 300, 1000])

        // A phone sample under the watch's 09:30–10:30 changes no total: nothing is sent for it.
        // Deleting the noon sample then changes only the 22nd back to empty.
        try await phone.save(Self.steps(100, Self.paris(20, 9, 40), Self.paris(20, 9, 50)))
        try await phone.delete(uuids: [noon.uuid])
        let deleted = try #require(try await updates.next())
        #expect(deleted.updatedStatistics.map(\.startDate) == [Self.paris(22)])
        #expect(Self.sums(deleted.updatedStatistics) == [nil])
        #expect(Self.sums(deleted.statisticsCollection.statistics()) == [5400, 300, nil])

        // A consumer task that is cancelled ends its loop.
        let descriptor = Self.daily()
        let (started, delivered) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var seen = 0
            for try await _ in descriptor.results(for: reader, from: Self.paris(20), to: Self.paris(23)) {
                seen += 1
                delivered.yield()
            }
            return seen
        }
        // Cancel once the stream delivers.
        for await _ in started { break }
        consumer.cancel()
        switch await consumer.result {
        case .success(let seen): #expect(seen <= 1)
        case .failure(let error): #expect((error as? SalusError)?.code == .cancelled, "\(error)")
        }
        // The connection still serves: every sample, no window: 5400 on the 20th + 300 on the 21st.
        #expect(try await StatisticsQueryDescriptor(predicate: .quantitySample(type: .stepCount), options: .cumulativeSum)
            .result(for: reader).sumQuantity()?.value == 5700)

        for store in [phone, watch, reader] { await store.close() }
        await server.stop()
    }

    @Test("refusals: the daemon's name the field; bad interval components fail before anything is sent")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let reader = try await HealthStoreTests.store(server, "org.example.reader")

        let mixed = await #expect(throws: SalusError.self) {
            try await StatisticsQueryDescriptor(predicate: .quantitySample(type: .stepCount), options: [.cumulativeSum, .discreteAverage])
                .result(for: reader)
        }
        #expect(mixed?.code == .invalidArgument)
        #expect(mixed?.field == "options")
        #expect(mixed?.statusCode == 3)
        #expect(mixed?.message.contains("cumulativeSum cannot be combined with discreteAverage") == true, "\(String(describing: mixed))")

        var averageSteps = Self.daily()
        averageSteps.options = .discreteAverage
        let style = await #expect(throws: SalusError.self) {
            try await averageSteps.result(for: reader, from: Self.paris(20), to: Self.paris(21))
        }
        #expect(style?.field == "options")
        #expect(style?.value == "discreteAverage")

        let sleep = await #expect(throws: SalusError.self) {
            try await StatisticsQueryDescriptor(predicate: .samples(.category(.sleepAnalysis)), options: .duration).result(for: reader)
        }
        #expect(sleep?.field == "type", "\(String(describing: sleep))")

        let meters = await #expect(throws: SalusError.self) {
            try await StatisticsQueryDescriptor(predicate: .quantitySample(type: .stepCount), options: .cumulativeSum, unit: .meter)
                .result(for: reader)
        }
        #expect(meters?.field == "unit", "\(String(describing: meters))")

        var twoLengths = Self.daily()
        twoLengths.intervalComponents = DateComponents(day: 1, hour: 12)
        let local = await #expect(throws: SalusError.self) {
            try await twoLengths.result(for: reader, from: Self.paris(20), to: Self.paris(21))
        }
        #expect(local?.field == "intervalComponents")
        #expect(local?.value == "hour: 12, day: 1")
        #expect(local?.statusCode == nil, "refused by SalusKit")
        var live = twoLengths.results(for: reader, from: Self.paris(20), to: Self.paris(21)).makeAsyncIterator()
        let liveError = await #expect(throws: SalusError.self) { try await live.next() }
        #expect(liveError?.field == "intervalComponents")

        let range = await #expect(throws: SalusError.self) {
            try await Self.daily().result(for: reader, from: Self.paris(21), to: Self.paris(20))
        }
        #expect(range?.field == "to", "\(String(describing: range))")

        await reader.close()
        await server.stop()
    }
}
