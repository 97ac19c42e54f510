import Foundation
import SalusKit
import SalusModel

/// `add` and `delete`: what a second process does while `follow` watches.
enum Edit {
    /// `add --stage rem [--start DATE] [--minutes N]`: saves one stage (default: ending now).
    static func add(_ arguments: Arguments) async throws {
        try arguments.allowOnly(["--stage", "--start", "--minutes"], command: "add")
        guard let stageName = arguments["--stage"] else {
            throw DiaryError("--stage: missing; expected one of core, deep, rem, awake, inBed")
        }
        let stage = try Diary.stage(stageName)
        let minutes = try arguments.integer("--minutes", minimum: 1) ?? 20
        let start = try arguments.date("--start") ?? Date().addingTimeInterval(-Double(minutes) * 60)
        let store = try await Diary.connect(arguments)
        defer { Task { await store.close() } }
        let result = try await store.save(.sleepAnalysis(
            stage, start: start, end: start.addingTimeInterval(Double(minutes) * 60),
            metadata: [MetadataKey.timeZone: .string(TimeZone.current.identifier)]
        ))
        say("added \(stage) \(result.uuid.uuidString.lowercased())")
    }

    /// `delete UUID…` or `delete --last`: deletes samples this app saved.
    static func delete(_ arguments: Arguments) async throws {
        try arguments.allowOnly(["--last"], command: "delete")
        let store = try await Diary.connect(arguments)
        defer { Task { await store.close() } }
        var uuids: [UUID] = []
        for word in arguments.words {
            guard let uuid = UUID(uuidString: word) else {
                throw DiaryError("UUID: \"\(word)\" is not a UUID; expected one such as 0193a6c4-5b1e-7c3d-8e2f-1a2b3c4d5e6f")
            }
            uuids.append(uuid)
        }
        if arguments.has("--last") {
            // The sample this app saved most recently (UUIDs are time-ordered, but creation date says it plainly).
            let mine = try await SampleQueryDescriptor(
                type: Diary.sleep, predicate: .sources([Diary.appID])
            ).result(for: store)
            guard let last = mine.max(by: { ($0.creationDate, $0.uuid.uuidString) < ($1.creationDate, $1.uuid.uuidString) }) else {
                throw DiaryError("--last: this app has saved no sleep samples; expected at least one (run `night` or `add` first)")
            }
            uuids.append(last.uuid)
        }
        guard !uuids.isEmpty else {
            throw DiaryError("delete: no sample named; expected one or more UUIDs or --last")
        }
        let count = try await store.delete(uuids: uuids)
        say("deleted \(count) sample\(count == 1 ? "" : "s"): \(uuids.map { $0.uuidString.lowercased() }.joined(separator: " "))")
    }
}
