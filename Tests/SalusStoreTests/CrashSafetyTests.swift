import Foundation
import SalusTestSupport
import SalusModel
import SalusSoak
import SalusStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Crash safety")
struct CrashSafetyTests {
    /// The crash-test executable, built next to the test bundle.
    static func executable() throws -> URL {
        let test = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let candidate = test.deletingLastPathComponent().appendingPathComponent("salus-store-crashtest")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw StoreError(code: .invalidArgument, message: "salus-store-crashtest not found at \(candidate.path)")
        }
        return candidate
    }

    @Test(
        "SIGKILL during saves, deletes, sync replacements, workout finishes and attachment uploads, 20 times: integrity ok, every acknowledged change present, no partial one"
    )
    func killDuringChanges() throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var loop = KillLoop(executable: try Self.executable(), databasePath: directory.appendingPathComponent("crash.sqlite").path)
        loop.size = 50
        // Kills land up to two cycles of the six operations in, so that each kind runs at a kill.
        loop.acknowledgementsBeforeKill = 1...12
        let report = try loop.run(kills: 20)
        #expect(report.integrityFailures.isEmpty, "\(report.integrityFailures)")
        #expect(report.lost.isEmpty, "\(report.lost)")
        #expect(report.partial.isEmpty, "\(report.partial)")
        #expect(report.notKilled == 0)
        for kind in CrashOperation.allCases {
            #expect((report.acknowledged[kind] ?? 0) > 0, "no \(kind.rawValue) was acknowledged")
        }
    }

    @Test("the kill check finds a lost acknowledged save, a partial batch and a replacement half done")
    func checkerFindsLossAndPartial() {
        var checker = KillChecker(size: 4)
        var observed = CrashStoreState()
        observed.batches = [0: 4, 1: 4]
        // Operations 0 and 1 acknowledged; 2 (a delete of 0) running at the kill: either state is fine.
        #expect(checker.check(observed: observed, acknowledged: [0, 1], inFlight: 2).passed)
        observed.batches = [1: 4]
        // Operation 0's samples gone though operation 2 was never acknowledged in the next run: lost.
        var lost = checker
        #expect(lost.check(observed: observed, acknowledged: [], inFlight: 6).lost.count == 1)
        observed.batches = [0: 4, 1: 3]
        var partial = checker
        #expect(partial.check(observed: observed, acknowledged: [], inFlight: 6).partial.count == 1)
        observed.batches = [0: 4, 1: 4, 3: 4]
        observed.syncVersions = ["sync-0": 3, "sync-1": 3, "sync-2": -1, "sync-3": 3]
        var mixed = checker
        #expect(!mixed.check(observed: observed, acknowledged: [], inFlight: 3).partial.isEmpty)
    }
}
