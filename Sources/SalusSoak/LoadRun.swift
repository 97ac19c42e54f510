#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusProto
import SalusRPC
import Synchronization

/// What each load client does, over and over until the run's end.
package enum LoadKind: String, CaseIterable, Sendable {
    /// Saves a batch of samples (steps or heart rate, alternately).
    case save
    /// Reads up to 100 samples of one type (a streamed sample query, read to its end).
    case query
    /// Follows one type with a live anchored query from the start for the whole run; its call
    /// time is the delay from a save's call to the feed receiving that batch's first sample.
    case feed
    /// Asks for a day of hourly step sums (a statistics collection, read to its end), over a day
    /// seeded before the run (`LoadRun.statisticsDay`).
    case statistics
    /// Connects, makes one call, and closes: one figure per whole round.
    case churn
    /// Opens a live anchored query on steps and never reads it.
    case stalled

    /// The kind of client `index` of `count`: one of each kind first (the stalled client first),
    /// then saves, queries, feeds, statistics and churn in the proportions 3:2:1:1:1.
    package static func of(client index: Int) -> LoadKind {
        let first: [LoadKind] = [.stalled, .feed, .save, .query, .statistics, .churn]
        if index < first.count { return first[index] }
        let cycle: [LoadKind] = [.save, .query, .save, .feed, .statistics, .save, .query, .churn]
        return cycle[(index - first.count) % cycle.count]
    }
}

/// One live feed's record: every sample UUID it received, in order, repeats included.
package struct FeedRecord: Sendable {
    package var type: String
    package var received: [Data]

    package init(type: String, received: [Data]) {
        self.type = type
        self.received = received
    }
}

/// The exactly-once check: every live feed received each sample of its type in the store
/// exactly once, and nothing else.
package enum ExactlyOnce {
    /// The problems found, each naming the feed, the type and the counts; empty when it holds.
    package static func check(feeds: [FeedRecord], store: [String: Set<Data>]) -> [String] {
        var problems: [String] = []
        for (index, feed) in feeds.enumerated() {
            let expected = store[feed.type] ?? []
            var seen = Set<Data>()
            var repeated = 0
            for uuid in feed.received where !seen.insert(uuid).inserted { repeated += 1 }
            let missing = expected.subtracting(seen).count
            let extra = seen.subtracting(expected).count
            if repeated > 0 || missing > 0 || extra > 0 {
                problems.append(
                    "feed \(index) (\(feed.type)): received \(feed.received.count) samples for \(expected.count) in the store: "
                        + "\(missing) missing, \(repeated) received twice or more, \(extra) not in the store")
            }
        }
        return problems
    }
}

/// The daemon's resident memory and open descriptors at one moment.
package struct ResourceSample: Sendable {
    /// Seconds since the run started.
    package var second: Double
    package var rssKiB: Int
    package var descriptors: Int

    /// Reads /proc/PID/status (VmRSS) and counts /proc/PID/fd.
    package static func read(pid: Int32, second: Double) -> ResourceSample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").compactMap({ Int($0) }).first,
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        else { return nil }
        return ResourceSample(second: second, rssKiB: kilobytes, descriptors: descriptors)
    }
}

/// A load run's settings.
package struct LoadConfiguration: Sendable {
    /// Concurrent clients (at least 6: one of each kind).
    package var clients = 64
    /// How long the clients run, in seconds.
    package var duration = 60.0
    /// Seconds before the first flatness window (the daemon's caches fill up).
    package var warmUp = 10.0
    /// Seconds in each flatness window: the one after the warm-up and the last one.
    package var window = 10.0
    /// How far the last window's mean may be from the first's, as a fraction.
    package var flatnessTolerance = 0.05
    /// Samples per save.
    package var batchSize = 50
    /// How long the feeds get, after the saves stop, to receive the last changes.
    package var settle = 30.0
    /// Kinds whose clients stay idle (to find which kind a resource grows with).
    package var skipped: Set<LoadKind> = []

    package init() {}
}

/// A load run's figures and verdict.
package struct LoadReport: Sendable {
    package struct KindFigures: Sendable {
        package var calls = 0
        package var errors = 0
        /// Sorted call times, microseconds.
        package var latencies: [Double] = []

        package func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return .nan }
            return latencies[min(latencies.count - 1, Int(Double(latencies.count - 1) * p))]
        }
    }

    package var clients = 0
    package var seconds = 0.0
    package var kinds: [LoadKind: KindFigures] = [:]
    /// The first errors seen, with their kind.
    package var errorMessages: [String] = []
    package var resources: [ResourceSample] = []
    /// The samples in the store per type at the end.
    package var store: [String: Set<Data>] = [:]
    package var storeCounts: [String: Int] { store.mapValues(\.count) }
    /// What each live feed received.
    package var feedRecords: [FeedRecord] = []
    package var feeds = 0
    package var exactlyOnceProblems: [String] = []
    /// Means of the first and last windows (nil when the run is too short to have both).
    package var rssWindows: (first: Double, last: Double)?
    package var descriptorWindows: (first: Double, last: Double)?
    package var flatnessTolerance = 0.05

    package var errors: Int { kinds.values.reduce(0) { $0 + $1.errors } }
    /// Calls made (feed deliveries are not calls).
    package var calls: Int { kinds.filter { $0.key != .feed }.values.reduce(0) { $0 + $1.calls } }

    static func within(_ windows: (first: Double, last: Double)?, _ tolerance: Double) -> Bool {
        guard let windows else { return true }
        return abs(windows.last - windows.first) <= windows.first * tolerance
    }

    package var rssFlat: Bool { Self.within(rssWindows, flatnessTolerance) }
    package var descriptorsFlat: Bool { Self.within(descriptorWindows, flatnessTolerance) }

    /// Why the run failed; empty when it passed.
    package var failures: [String] {
        var reasons: [String] = []
        if errors > 0 { reasons.append("\(errors) errors") }
        if !rssFlat, let w = rssWindows {
            reasons.append(String(format: "RSS not flat: %.1f MiB after warm-up, %.1f MiB at the end", w.first / 1024, w.last / 1024))
        }
        if !descriptorsFlat, let w = descriptorWindows {
            reasons.append(String(format: "descriptors not flat: %.1f after warm-up, %.1f at the end", w.first, w.last))
        }
        reasons += exactlyOnceProblems
        if feeds == 0 { reasons.append("no live feed ran") }
        return reasons
    }

    package var passed: Bool { failures.isEmpty }

    /// The report as a table, then the resource windows and PASS or FAIL with the reasons.
    package func render() -> String {
        var lines: [String] = []
        lines.append(String(format: "%d clients, %.1f s, %d calls, %.0f calls/s, %d errors", clients, seconds, calls, Double(calls) / seconds, errors))
        lines.append("kind         clients  calls    calls/s   p50 ms    p99 ms    errors")
        lines.append("-----------  -------  -------  ---------  --------  --------  ------")
        for kind in LoadKind.allCases {
            guard let figures = kinds[kind] else { continue }
            lines.append(
                String(
                    format: "%@%7d  %7d  %9.1f  %8.2f  %8.2f  %6d", kind.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0),
                    clientCounts[kind] ?? 0, figures.calls, Double(figures.calls) / seconds, figures.percentile(0.5) / 1000,
                    figures.percentile(0.99) / 1000, figures.errors))
        }
        lines.append("(feed: from a save's call to each feed receiving its first sample; churn: connect, one call, close)")
        if let first = resources.first, let last = resources.last {
            let peak = resources.map(\.rssKiB).max() ?? 0
            lines.append(
                String(
                    format: "daemon RSS %.1f MiB at start, %.1f MiB at the end, %.1f MiB peak; descriptors %d at start, %d at the end (%d samples, one a second)",
                    Double(first.rssKiB) / 1024, Double(last.rssKiB) / 1024, Double(peak) / 1024, first.descriptors, last.descriptors,
                    resources.count))
        }
        if let r = rssWindows, let d = descriptorWindows {
            lines.append(
                String(
                    format: "flatness (mean of the 10 s after warm-up vs the last 10 s, within %.0f%%): RSS %.1f → %.1f MiB (%+.1f%%) %@; descriptors %.1f → %.1f (%+.1f%%) %@",
                    flatnessTolerance * 100, r.first / 1024, r.last / 1024, (r.last / r.first - 1) * 100, rssFlat ? "flat" : "NOT FLAT",
                    d.first, d.last, (d.last / d.first - 1) * 100, descriptorsFlat ? "flat" : "NOT FLAT"))
        } else {
            lines.append("flatness: not measured (the run is shorter than warm-up plus two windows)")
        }
        let counts = storeCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("exactly once: \(feeds) live feeds checked against the store (\(counts)): \(exactlyOnceProblems.isEmpty ? "every change received once" : "\(exactlyOnceProblems.count) feeds differ")")
        for message in errorMessages { lines.append("error: \(message)") }
        lines.append(passed ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    package var clientCounts: [LoadKind: Int] = [:]
}

/// Figures the clients add to while they run.
/// Set once the run stops its feeds: a feed's end is an error only before.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}

final class LoadFigures: Sendable {
    private let state = Mutex<[LoadKind: LoadReport.KindFigures]>([:])
    private let messages = Mutex<[String]>([])
    /// When each save was sent, by the "soak" metadata of its first sample.
    let sent = Mutex<[String: ContinuousClock.Instant]>([:])
    /// What each live feed received, by feed.
    let records = Mutex<[Int: [Data]]>([:])
    /// The daemon's memory and descriptors, once a second.
    let resources = Mutex<[ResourceSample]>([])

    func record(_ kind: LoadKind, since start: ContinuousClock.Instant, at now: ContinuousClock.Instant = .now) {
        let elapsed = now - start
        let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
        state.withLock {
            $0[kind, default: .init()].calls += 1
            $0[kind, default: .init()].latencies.append(micros)
        }
    }

    func fail(_ kind: LoadKind, _ error: any Error) {
        state.withLock { $0[kind, default: .init()].errors += 1 }
        messages.withLock { if $0.count < 10 { $0.append("\(kind.rawValue): \(error)") } }
    }

    func snapshot() -> ([LoadKind: LoadReport.KindFigures], [String]) {
        var figures = state.withLock { $0 }
        for kind in figures.keys { figures[kind]!.latencies.sort() }
        return (figures, messages.withLock { $0 })
    }
}

/// Many clients against one salusd: saves in batches, sample queries, live anchored feeds,
/// statistics collections, connect-call-close churn and one client that stops reading its
/// stream, with the daemon's memory and descriptors sampled every second.
package struct LoadRun: Sendable {
    package static let steps = "HKQuantityTypeIdentifierStepCount"
    package static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    package static let types = [steps, heartRate]
    /// The day the samples fall on (microseconds since the Unix epoch, a UTC midnight).
    static let day: Int64 = 1_700_006_400_000_000
    /// The day the statistics clients ask about: the day before, seeded before the run with
    /// ``statisticsDaySamples`` step samples that the saves never add to. A statistics
    /// collection holds every sample of its window while it merges sources, so over the day the
    /// saves fill, each call's memory would grow with the run; over a fixed day it does not, and
    /// the flatness check measures what it is for: memory the daemon keeps.
    static let statisticsDay: Int64 = day - 86_400_000_000
    /// Step samples on ``statisticsDay``: one every 30 s.
    static let statisticsDaySamples = 2_880

    package var socketPath: String
    package var daemonPID: Int32
    package var configuration: LoadConfiguration
    package var appID = "org.salus.soak"

    package init(socketPath: String, daemonPID: Int32, configuration: LoadConfiguration = LoadConfiguration()) {
        self.socketPath = socketPath
        self.daemonPID = daemonPID
        self.configuration = configuration
    }

    func connect() async throws -> RPCClient {
        var settings = RPCClient.Configuration()
        settings.declaredAppID = appID
        settings.clientName = "salus-soak"
        return try await RPCClient.connect(unixSocketPath: socketPath, configuration: settings)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Runs the load.
    package func run() async throws -> LoadReport {
        let figures = LoadFigures()
        let clientKinds = (0..<max(configuration.clients, 6)).map(LoadKind.of(client:))
            .filter { !configuration.skipped.contains($0) }
        let stopping = StopFlag()

        // The statistics clients' day, before anything else, so that the feeds' first results
        // hold it too.
        if clientKinds.contains(.statistics) {
            let seeder = try await connect()
            for first in stride(from: 0, to: Self.statisticsDaySamples, by: 500) {
                var request = Salus_V1_SaveRequest()
                request.samples = (first..<min(first + 500, Self.statisticsDaySamples)).map { item in
                    var sample = Salus_V1_Sample()
                    sample.type = Self.steps
                    sample.startDate = Self.statisticsDay + Int64(item) * 30_000_000
                    sample.endDate = sample.startDate + 30_000_000
                    sample.quantity.value = Double(item % 40)
                    sample.quantity.unit = "count"
                    return sample
                }
                let _: Salus_V1_SaveResponse = try await seeder.unary(SalusMethods.Store.save, request: request)
            }
            await seeder.close()
        }

        // Feeds and the stalled stream connect first and stay for the whole run.
        var feedStreams: [(type: String, client: RPCClient, stream: RPCResponseStream<Salus_V1_AnchoredBatch>)] = []
        var stalled: (RPCClient, RPCResponseStream<Salus_V1_AnchoredBatch>)?
        for (index, kind) in clientKinds.enumerated() where kind == .feed || kind == .stalled {
            let client = try await connect()
            let type = kind == .stalled ? Self.steps : Self.types[index % 2]
            var request = Salus_V1_AnchoredQueryRequest()
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = type
            request.descriptors = [descriptor]
            request.live = true
            let stream = try client.serverStreaming(
                SalusMethods.Store.queryAnchored, request: request)
            if kind == .stalled { stalled = (client, stream) } else { feedStreams.append((type, client, stream)) }
        }

        // The run's clock starts once the feeds are connected: on a busy machine connecting
        // them can take a good part of a short run.
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int(configuration.duration * 1000))
        var report = LoadReport()
        report.clients = clientKinds.count
        report.flatnessTolerance = configuration.flatnessTolerance
        for kind in clientKinds { report.clientCounts[kind, default: 0] += 1 }
        report.feeds = feedStreams.count

        try await withThrowingTaskGroup(of: Void.self) { group in
            // The sampler: once a second until the end, and at least once (on a busy machine a
            // short run can be over before this task first runs).
            group.addTask { [daemonPID] in
                var tick = 0
                repeat {
                    if let sample = ResourceSample.read(pid: daemonPID, second: Self.seconds(ContinuousClock.now - start)) {
                        figures.resources.withLock { $0.append(sample) }
                    }
                    tick += 1
                    try? await Task.sleep(until: start + .seconds(tick), clock: .continuous)
                } while ContinuousClock.now < end
            }
            for (index, feed) in feedStreams.enumerated() {
                group.addTask {
                    do {
                        for try await batch in feed.stream {
                            let now = ContinuousClock.now
                            figures.records.withLock { $0[index, default: []] += batch.added.map(\.uuid) }
                            for sample in batch.added {
                                guard case .stringValue(let tag)? = sample.metadata["soak"]?.kind,
                                    let sent = figures.sent.withLock({ $0[tag] })
                                else { continue }
                                figures.record(.feed, since: sent, at: now)
                            }
                        }
                        if !stopping.isSet {
                            figures.fail(.feed, RPCError(code: .unavailable, message: "the live feed ended before the run", reason: .unavailable))
                        }
                    } catch {
                        if !stopping.isSet { figures.fail(.feed, error) }
                    }
                }
            }
            // The other clients, in a group of their own: the store is read once every last
            // call has finished, so no save can land after the snapshot the feeds are checked against.
            let clients = Task {
                await withTaskGroup(of: Void.self) { calls in
                    for (index, kind) in clientKinds.enumerated() where kind != .feed && kind != .stalled {
                        calls.addTask {
                            await self.client(index: index, kind: kind, until: end, figures: figures)
                        }
                    }
                }
            }
            // The group's tasks other than the feeds end by `end`; the feeds are ended below.
            func stopFeeds() {
                stopping.set()
                for feed in feedStreams { feed.stream.cancel() }
                if let stalled { stalled.1.cancel() }
            }
            do {
            while ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(200)) }
            // Let the clients' last calls finish.
            await clients.value

            // The store's samples per type, read after the last save.
            var store: [String: Set<Data>] = [:]
            let reader = try await connect()
            for type in Self.types {
                var request = Salus_V1_SampleQueryRequest()
                request.type = type
                var uuids = Set<Data>()
                for try await page in try reader.serverStreaming(
                    SalusMethods.Store.querySamples, request: request)
                {
                    for sample in page.samples { uuids.insert(sample.uuid) }
                }
                store[type] = uuids
            }
            await reader.close()
            // Give the feeds time to receive the last changes.
            let settleEnd = ContinuousClock.now + .milliseconds(Int(configuration.settle * 1000))
            while ContinuousClock.now < settleEnd {
                let caughtUp = figures.records.withLock { records in
                    feedStreams.indices.allSatisfy { Set(records[$0] ?? []).count >= store[feedStreams[$0].type]?.count ?? 0 }
                }
                if caughtUp { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            // A short pause more, to catch a change received twice just after.
            try await Task.sleep(for: .milliseconds(300))
            stopFeeds()
            try await group.waitForAll()
            for feed in feedStreams { await feed.client.close() }
            if let stalled { await stalled.0.close() }

            let received = figures.records.withLock { $0 }
            let feeds = feedStreams.indices.map { FeedRecord(type: feedStreams[$0].type, received: received[$0] ?? []) }
            report.exactlyOnceProblems = ExactlyOnce.check(feeds: feeds, store: store)
            report.feedRecords = feeds
            report.store = store
            } catch {
                stopFeeds()
                group.cancelAll()
                throw error
            }
        }

        report.seconds = configuration.duration
        let (kinds, messages) = figures.snapshot()
        report.kinds = kinds
        report.errorMessages = messages
        report.resources = figures.resources.withLock { $0 }
        let firstWindow = report.resources.filter {
            $0.second >= configuration.warmUp && $0.second < configuration.warmUp + configuration.window
        }
        let lastWindow = report.resources.filter { $0.second >= configuration.duration - configuration.window }
        if configuration.duration >= configuration.warmUp + 2 * configuration.window, !firstWindow.isEmpty, !lastWindow.isEmpty {
            func mean(_ values: [Int]) -> Double { Double(values.reduce(0, +)) / Double(values.count) }
            report.rssWindows = (mean(firstWindow.map(\.rssKiB)), mean(lastWindow.map(\.rssKiB)))
            report.descriptorWindows = (mean(firstWindow.map(\.descriptors)), mean(lastWindow.map(\.descriptors)))
        }
        return report
    }

    /// One client's loop until `end`.
    func client(index: Int, kind: LoadKind, until end: ContinuousClock.Instant, figures: LoadFigures) async {
        var client: RPCClient?
        if kind != .churn {
            do { client = try await connect() } catch {
                figures.fail(kind, error)
                return
            }
        }
        var call = 0
        // At least one call of each client, however long connecting took on a busy machine.
        repeat {
            call += 1
            let started = ContinuousClock.now
            do {
                switch kind {
                case .save:
                    let type = Self.types[(index + call) % 2]
                    var request = Salus_V1_SaveRequest()
                    request.samples = (0..<configuration.batchSize).map { item in
                        var sample = Salus_V1_Sample()
                        sample.type = type
                        sample.startDate = Self.day + Int64.random(in: 0..<86_400) * 1_000_000
                        sample.endDate = sample.startDate + 60_000_000
                        sample.quantity.value = type == Self.steps ? Double(item % 100) : Double(60 + item % 60)
                        sample.quantity.unit = type == Self.steps ? "count" : "count/min"
                        return sample
                    }
                    let tag = "\(index)-\(call)"
                    var value = Salus_V1_MetadataValue()
                    value.stringValue = tag
                    request.samples[0].metadata["soak"] = value
                    figures.sent.withLock { $0[tag] = started }
                    let _: Salus_V1_SaveResponse = try await client!.unary(SalusMethods.Store.save, request: request)
                    figures.record(.save, since: started)
                case .query:
                    var request = Salus_V1_SampleQueryRequest()
                    request.type = Self.types[(index + call) % 2]
                    request.limit = 100
                    for try await _ in try client!.serverStreaming(
                        SalusMethods.Store.querySamples, request: request)
                    {}
                    figures.record(.query, since: started)
                case .statistics:
                    var request = Salus_V1_StatisticsCollectionRequest()
                    request.type = Self.steps
                    request.options = [.cumulativeSum]
                    request.unit = "count"
                    request.anchorDate = Self.statisticsDay
                    request.intervalCount = 1
                    request.intervalUnit = .hour
                    request.timeZone = "UTC"
                    request.from = Self.statisticsDay
                    request.to = Self.statisticsDay + 86_400_000_000
                    for try await _ in try client!.serverStreaming(
                        SalusMethods.Statistics.queryCollection, request: request)
                    {}
                    figures.record(.statistics, since: started)
                case .churn:
                    let connection = try await connect()
                    var request = Salus_V1_EchoRequest()
                    request.text = "churn \(index) \(call)"
                    let _: Salus_V1_EchoResponse = try await connection.unary(SalusMethods.Diagnostics.echo, request: request)
                    await connection.close()
                    figures.record(.churn, since: started)
                case .feed, .stalled:
                    return
                }
            } catch {
                figures.fail(kind, error)
                // An error must not become a busy loop.
                try? await Task.sleep(for: .milliseconds(10))
            }
        } while ContinuousClock.now < end
        await client?.close()
    }
}
