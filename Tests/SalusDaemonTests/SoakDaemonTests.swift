import Foundation
import SalusSoak
import Testing

/// The load of `make soak`, small: a few clients for a few seconds against salusd.
@Suite("Soak load against salusd")
struct SoakDaemonTests {
    @Test("10 clients for 3 s: no errors, every live feed holds every change once; a dropped or repeated change fails the check")
    func smallLoadPassesAndExactlyOnceCatchesDoctoredFeeds() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        var configuration = LoadConfiguration()
        configuration.clients = 10
        configuration.duration = 3
        configuration.batchSize = 20
        let run = LoadRun(socketPath: daemon.socketPath, daemonPID: daemon.process.processIdentifier, configuration: configuration)
        let report = try await run.run()
        _ = try await daemon.stop()
        #expect(report.errors == 0, "\(report.errorMessages)")
        #expect(report.exactlyOnceProblems.isEmpty, "\(report.exactlyOnceProblems)")
        #expect(report.feeds == 2)
        #expect((report.kinds[.save]?.calls ?? 0) > 0)
        #expect((report.kinds[.query]?.calls ?? 0) > 0)
        #expect((report.kinds[.statistics]?.calls ?? 0) > 0)
        #expect((report.kinds[.churn]?.calls ?? 0) > 0)
        #expect(report.storeCounts.values.reduce(0, +) > 0)
        #expect(!report.resources.isEmpty)
        #expect(report.passed, "\(report.failures)")

        // The same check on a feed's record with one change dropped, then with one repeated.
        var dropped = report.feedRecords
        try #require(!dropped[0].received.isEmpty)
        dropped[0].received.removeLast()
        let missing = ExactlyOnce.check(feeds: dropped, store: report.store)
        #expect(missing.count == 1 && missing[0].contains("1 missing"), "\(missing)")
        var repeated = report.feedRecords
        let first = try #require(repeated[0].received.first)
        repeated[0].received.append(first)
        #expect(ExactlyOnce.check(feeds: repeated, store: report.store).count == 1)
    }

    @Test("the exactly-once check names a feed that missed a change, received one twice, or one not in the store")
    func exactlyOnceCheck() {
        let uuids = (0..<5).map { Data([UInt8($0)] + Array(repeating: 0, count: 15)) }
        let store = ["steps": Set(uuids)]
        #expect(ExactlyOnce.check(feeds: [FeedRecord(type: "steps", received: uuids.reversed())], store: store).isEmpty)
        let dropped = ExactlyOnce.check(feeds: [FeedRecord(type: "steps", received: Array(uuids.dropLast()))], store: store)
        #expect(dropped == ["feed 0 (steps): received 4 samples for 5 in the store: 1 missing, 0 received twice or more, 0 not in the store"])
        let repeated = ExactlyOnce.check(feeds: [FeedRecord(type: "steps", received: uuids + [uuids[2]])], store: store)
        #expect(repeated.count == 1 && repeated[0].contains("1 received twice"))
        let extra = ExactlyOnce.check(feeds: [FeedRecord(type: "steps", received: uuids + [Data(repeating: 0xFF, count: 16)])], store: store)
        #expect(extra.count == 1 && extra[0].contains("1 not in the store"))
    }
}
