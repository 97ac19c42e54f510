import Foundation
import SalusKit
import SalusModel

/// `follow`: an anchored live query of sleep analysis. Prints what is there, then every sample
/// another process adds or deletes, until Ctrl-C (or `--updates N` updates after the first).
enum Follow {
    static func run(_ arguments: Arguments) async throws {
        try arguments.allowOnly(["--anchor", "--updates"], command: "follow")
        let anchor = try arguments.integer("--anchor").map { QueryAnchor(rawValue: UInt64($0)) }
        let limit = try arguments.integer("--updates", minimum: 1)
        let store = try await Diary.connect(arguments)
        defer { Task { await store.close() } }
        try await follow(store: store, from: anchor, updates: limit)
    }

    /// Follows until `updates` updates after the initial results (nil: until cancelled).
    static func follow(store: HealthStore, from anchor: QueryAnchor?, updates limit: Int?, ready: (@Sendable () -> Void)? = nil) async throws {
        let query = AnchoredObjectQueryDescriptor(predicates: [.samples(Diary.sleep)], anchor: anchor)
        var updates = 0
        var first = true
        for try await update in query.results(for: store) {
            if first {
                say("initial: \(update.addedSamples.count) added, \(update.deletedObjects.count) deleted, anchor \(update.newAnchor)")
                say("following sleep analysis; add or delete samples from another terminal (Ctrl-C stops)")
                first = false
                ready?()
                continue
            }
            for sample in update.addedSamples { say("+ " + Diary.line(sample)) }
            for object in update.deletedObjects { say("- deleted \(object.uuid.uuidString.lowercased())") }
            say("anchor \(update.newAnchor)")
            updates += 1
            if let limit, updates >= limit { return }
        }
    }
}
