import Foundation
import SalusKit
import Testing

@testable import SalusSync

/// What a process owes the server when `--types` changes between runs (`feeds.access`), and how
/// the status says it.
@Suite struct FollowedTypesTests {
    let steps = SampleType.quantity(.stepCount)
    let heartRate = SampleType.quantity(.heartRate)
    var stepsID: String { steps.identifier.rawValue }
    var heartRateID: String { heartRate.identifier.rawValue }

    /// The memory of a process following `types` with the feed at `anchor`, from `record`.
    func restored(_ record: AccessRecord, _ types: [SampleType], anchor: UInt64) -> SyncEngine.AccessMemory {
        var memory = SyncEngine.AccessMemory()
        memory.restore(record, types: types, anchor: anchor)
        return memory
    }

    @Test("a type the last process did not follow is owed from the start of its history; a new feed owes nothing")
    func addedType() {
        var record = AccessRecord()
        record.followed = [stepsID: 6]
        #expect(restored(record, [steps, heartRate], anchor: 6).backfill == [heartRate: 0])
        #expect(restored(AccessRecord(), [steps, heartRate], anchor: 0).backfill.isEmpty)
        // Followed all along: nothing owed.
        record.followed = [stepsID: 6, heartRateID: 6]
        #expect(restored(record, [steps, heartRate], anchor: 9).backfill.isEmpty)
    }

    @Test("a type left out is kept with the anchor it was followed up to, and owed from there when added back")
    func leftOutThenBack() {
        var record = AccessRecord()
        record.followed = [stepsID: 6, heartRateID: 6]
        let heartRateOnly = restored(record, [heartRate], anchor: 6)
        #expect(heartRateOnly.backfill.isEmpty)
        let kept = heartRateOnly.record(anchor: 9)
        #expect(kept.followed == [heartRateID: 9])
        #expect(kept.unfollowed == [stepsID: 6])
        let both = restored(kept, [steps, heartRate], anchor: 9)
        #expect(both.backfill == [steps: 6])
        #expect(both.record(anchor: 9).unfollowed.isEmpty)
        // Left out while it was still owed a backfill or withdrawn: kept from the earliest.
        var owed = AccessRecord()
        owed.followed = [stepsID: 9, heartRateID: 9]
        owed.backfill = [heartRateID: 0]
        owed.withdrawn = [stepsID: 4]
        #expect(restored(owed, [], anchor: 9).record(anchor: 9).unfollowed == [stepsID: 4, heartRateID: 0])
    }

    @Test("a record written before the followed types were kept counts the types it names as followed")
    func earlierRecord() throws {
        let record = try JSONDecoder().decode(AccessRecord.self, from: Data(#"{"granted": {"HKQuantityTypeIdentifierStepCount": 4}}"#.utf8))
        #expect(record.followed == nil)
        #expect(restored(record, [steps, heartRate], anchor: 6).backfill == [heartRate: 0])
    }

    @Test("status: a backfill owed and one under way are shown with what is owed; the exit status says what answered")
    func statusText() {
        var report = StatusReport(person: "p1", origin: "laptop")
        report.serverAnchor = 6
        report.lag = SyncLag(changes: 4, atLeast: false, seconds: 1)
        report.backfills = [StatusReport.OwedBackfill(type: heartRateID, from: 0, changes: 4, atLeast: false)]
        #expect(report.text.contains("lag: 4 changes"))
        #expect(report.text.contains("backfill owed: \(heartRateID), 4 changes from the start of its history"), "\(report.text)")
        #expect(report.exitStatus == 0)
        var process = SyncStatus(person: "p1", origin: "laptop")
        process.backfills = [SyncStatus.Backfill(type: heartRateID, from: 0, sent: 2, owed: 4, atLeast: false)]
        report.process = process
        #expect(report.text.contains("backfilling \(heartRateID): 2 of 4 changes, from the start of its history"), "\(report.text)")
        #expect(!report.text.contains("backfill owed"), "\(report.text)")

        report.unreachable = ["PostgreSQL: connection refused"]
        #expect(report.exitStatus == 69)
        report.misconfigured = true
        #expect(report.exitStatus == 64)
    }
}
