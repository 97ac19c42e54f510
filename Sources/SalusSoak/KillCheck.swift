import Foundation
import SalusStore

/// What a store holds of the crash test's operations, read from its files after a kill.
package struct CrashStoreState: Equatable, Sendable {
    /// Live samples per operation number (the metadata "batch").
    package var batches: [Int: Int] = [:]
    /// The sync versions of the live samples that carry a sync identifier, by identifier.
    package var syncVersions: [String: Int] = [:]
    /// Workout builders saved and not finished.
    package var builders: Set<UUID> = []
    /// Operation numbers of the attachments whose row exists and whose file holds exactly the
    /// content uploaded.
    package var attachments: Set<Int> = []
    /// Attachment rows whose file is missing, of another size or other content.
    package var damagedAttachments: [String] = []
    /// `PRAGMA integrity_check`'s answer.
    package var integrity = "ok"

    package init() {}

    /// Reads the store at `path` (read-only) and its `attachments/` folder. The content of an
    /// attachment whose UUID is in `verified` is not compared again (files are never rewritten),
    /// only its size; attachments found whole are added to it.
    package static func read(path: String, verified: inout Set<UUID>) throws -> CrashStoreState {
        let database = try Database(path: path, create: false, readOnly: true)
        defer { database.close() }
        var state = CrashStoreState()
        state.integrity = try database.scalarText("PRAGMA integrity_check") ?? "no answer"
        let batches = try database.prepare(
            "SELECT CAST(salus_metadata_value(metadata, 'batch') AS INTEGER) AS batch, count(*) FROM samples "
                + "WHERE batch IS NOT NULL GROUP BY 1", cached: false)
        while try batches.step() { state.batches[Int(batches.int64(0))] = Int(batches.int64(1)) }
        let sync = try database.prepare(
            "SELECT sync_identifier, CAST(sync_version AS INTEGER) FROM samples WHERE sync_identifier IS NOT NULL",
            cached: false)
        while try sync.step() { state.syncVersions[sync.text(0) ?? ""] = Int(sync.int64(1)) }
        let builders = try database.prepare("SELECT id FROM workout_builders", cached: false)
        while try builders.step() { if let id = builders.uuid(0) { state.builders.insert(id) } }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("attachments").path
        let attachments = try database.prepare("SELECT uuid, name, size FROM attachments", cached: false)
        while try attachments.step() {
            let name = attachments.text(1) ?? ""
            let uuid = attachments.uuid(0)
            let file = "\(folder)/\(uuid?.uuidString ?? "?")"
            guard let operation = Int(name.dropFirst("batch-".count)), name.hasPrefix("batch-") else {
                state.damagedAttachments.append("\(name): not a crash-test attachment")
                continue
            }
            if let uuid, verified.contains(uuid),
                let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int,
                size == CrashOperation.attachmentSize, attachments.int64(2) == Int64(size)
            {
                state.attachments.insert(operation)
                continue
            }
            let expected = (0..<CrashOperation.attachmentSize).map { CrashOperation.attachmentByte(operation, $0) }
            guard let content = FileManager.default.contents(atPath: file) else {
                state.damagedAttachments.append("\(name): \(file) is missing")
                continue
            }
            if attachments.int64(2) != Int64(expected.count) || content.count != expected.count
                || content != Data(expected)
            {
                state.damagedAttachments.append(
                    "\(name): \(content.count) bytes in \(file), row says \(attachments.int64(2)), expected \(expected.count) bytes of its pattern")
                continue
            }
            state.attachments.insert(operation)
            if let uuid { verified.insert(uuid) }
        }
        return state
    }

    /// This state with operation `n` committed, for batches of `size`.
    package func applying(_ operation: Int, size: Int) -> CrashStoreState {
        var next = self
        switch CrashOperation.kind(of: operation) {
        case .save:
            next.batches[operation] = size
        case .delete:
            next.batches[operation - 2] = nil
        case .syncReplace:
            for batch in next.batches.keys where CrashOperation.kind(of: batch) == .syncReplace {
                next.batches[batch] = nil
            }
            next.batches[operation] = size
            next.syncVersions = Dictionary(uniqueKeysWithValues: (0..<size).map { ("sync-\($0)", operation) })
        case .workoutFinish:
            next.batches[operation] = size + 1
        case .attachmentUpload:
            next.attachments.insert(operation)
        }
        return next
    }

    /// The states a kill during operation `n` may leave: not applied, applied, and for a
    /// workout finish the builder saved and not yet finished.
    package func possibleAfterKill(during operation: Int, size: Int) -> [CrashStoreState] {
        var states = [self, applying(operation, size: size)]
        if CrashOperation.kind(of: operation) == .workoutFinish {
            var saved = self
            saved.builders.insert(CrashOperation.builderID(operation))
            states.append(saved)
        }
        return states
    }
}

/// One kill's findings: acknowledged changes missing, partial changes present.
package struct KillFindings: Sendable {
    /// Acknowledged changes the store no longer holds, described.
    package var lost: [String] = []
    /// Changes present in part (a batch with some of its samples, mixed sync versions, an
    /// attachment row without its whole content, a finished workout whose builder is still
    /// there), or changes no operation made, described.
    package var partial: [String] = []
    /// `PRAGMA integrity_check` when it did not answer "ok".
    package var integrity: String?
    /// Whether the operation running at the kill had committed without being acknowledged.
    package var inFlightCommitted = false

    package var passed: Bool { lost.isEmpty && partial.isEmpty && integrity == nil }
}

/// Checks a store after each kill of salus-store-crashtest against every operation acknowledged
/// so far. The store must hold exactly the acknowledged operations' changes, plus possibly the
/// whole change of the one operation that was running (its acknowledgement not yet printed).
package struct KillChecker: Sendable {
    /// What the store must hold: every acknowledged operation (and every in-flight one found
    /// committed) applied in order.
    package private(set) var expected = CrashStoreState()
    package let size: Int

    package init(size: Int) {
        self.size = size
    }

    /// Checks `observed` after a kill during `inFlight` (the operation after the last
    /// acknowledged one), given the operations acknowledged in that run, in order.
    package mutating func check(observed: CrashStoreState, acknowledged: [Int], inFlight: Int) -> KillFindings {
        for operation in acknowledged { expected = expected.applying(operation, size: size) }
        var findings = KillFindings()
        if observed.integrity != "ok" { findings.integrity = observed.integrity }
        let candidates = expected.possibleAfterKill(during: inFlight, size: size)
        var comparable = observed
        comparable.integrity = "ok"
        if let match = candidates.firstIndex(of: comparable) {
            findings.inFlightCommitted = match == 1
            expected = candidates[match]
            return findings
        }
        let applied = expected.applying(inFlight, size: size)
        // Lost: an acknowledged change that is not there.
        for (batch, count) in expected.batches.sorted(by: { $0.key < $1.key }) where observed.batches[batch] == nil {
            if CrashOperation.kind(of: inFlight) == .delete, batch == inFlight - 2 { continue }
            if CrashOperation.kind(of: inFlight) == .syncReplace, CrashOperation.kind(of: batch) == .syncReplace { continue }
            findings.lost.append("operation \(batch) (\(CrashOperation.kind(of: batch).rawValue)): its \(count) samples are missing")
        }
        for operation in expected.attachments.subtracting(observed.attachments).sorted()
        where !observed.damagedAttachments.contains(where: { $0.hasPrefix(CrashOperation.attachmentName(operation) + ":") }) {
            findings.lost.append("operation \(operation) (attachment upload): its attachment is missing")
        }
        // Partial or unexpected.
        for (batch, count) in observed.batches.sorted(by: { $0.key < $1.key }) {
            let whole = CrashOperation.samplesSaved(by: batch, size: size)
            if count != whole {
                findings.partial.append("operation \(batch) (\(CrashOperation.kind(of: batch).rawValue)): \(count) of \(whole) samples")
            } else if expected.batches[batch] == nil, applied.batches[batch] == nil {
                findings.partial.append("operation \(batch) (\(CrashOperation.kind(of: batch).rawValue)): present, but deleted or never acknowledged")
            }
        }
        if Set(observed.syncVersions.values).count > 1 {
            findings.partial.append("sync identifiers hold mixed versions \(Set(observed.syncVersions.values).sorted())")
        }
        if !observed.syncVersions.isEmpty, observed.syncVersions.count != size {
            findings.partial.append("\(observed.syncVersions.count) of \(size) sync identifiers are live")
        }
        if let version = observed.syncVersions.values.first, version != expected.syncVersions.values.first,
            version != applied.syncVersions.values.first
        {
            findings.lost.append("sync identifiers hold version \(version), expected \(expected.syncVersions.values.first ?? -1)")
        }
        for builder in observed.builders where observed.batches[Self.operation(ofBuilder: builder)] != nil {
            findings.partial.append("workout builder \(builder) is still there after its workout was saved")
        }
        findings.partial += observed.damagedAttachments
        if findings.lost.isEmpty, findings.partial.isEmpty {
            findings.partial.append("the store matches no state the acknowledged operations allow")
        }
        // Go on from what is there, so that later kills are checked on their own.
        expected = observed
        expected.integrity = "ok"
        expected.damagedAttachments = []
        return findings
    }

    static func operation(ofBuilder id: UUID) -> Int {
        Int(id.uuidString.suffix(12), radix: 16) ?? -1
    }
}
