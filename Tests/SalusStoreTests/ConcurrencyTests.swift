import Foundation
import SalusModel
import SalusStore
import Synchronization
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("several writers, 10,000 random saves and deletes; a follower of the commit feed loses and repeats nothing")
    func followerSeesEveryChange() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let writers = 4
        let operationsPerWriter = 2_500
        let descriptors = [QueryDescriptor(type: Fixtures.steps)]

        // Subscribe first, then start from the beginning: nothing can fall between the two.
        let events = store.commits()
        let follower = Task { () throws -> (live: Set<UUID>, anchor: Anchor, problems: [String]) in
            var live = Set<UUID>()
            var everAdded = Set<UUID>()
            var everDeleted = Set<UUID>()
            var problems: [String] = []
            var anchor: Anchor?
            func catchUp() async throws {
                repeat {
                    let result = try await store.anchoredQuery(descriptors, anchor: anchor, limit: 300)
                    for sample in result.added {
                        if !everAdded.insert(sample.uuid).inserted { problems.append("added twice: \(sample.uuid)") }
                        live.insert(sample.uuid)
                    }
                    for deleted in result.deleted {
                        if !everDeleted.insert(deleted.uuid).inserted { problems.append("deleted twice: \(deleted.uuid)") }
                        live.remove(deleted.uuid)
                    }
                    if let anchor, result.anchor < anchor { problems.append("anchor went back") }
                    anchor = result.anchor
                    if !result.hasMore { break }
                } while true
            }
            try await catchUp()
            for await event in events {
                if event.changedTypes.contains(Fixtures.heartRate) {
                    try await catchUp()
                    break
                }
                if event.changedTypes.contains(Fixtures.steps) { try await catchUp() }
            }
            return (live, anchor ?? .zero, problems)
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let source = SourceRevision(appID: "org.example.writer\(writer)", name: "Writer \(writer)")
                    var generator = SystemRandomNumberGenerator()
                    var mine: [UUID] = []
                    for operation in 0..<operationsPerWriter {
                        if !mine.isEmpty && Int.random(in: 0..<10, using: &generator) < 3 {
                            let index = Int.random(in: mine.indices, using: &generator)
                            let uuid = mine.remove(at: index)
                            _ = try await store.delete([uuid], requester: .app(source.appID))
                        } else {
                            let count = Int.random(in: 1...3, using: &generator)
                            let samples = (0..<count).map { _ in
                                Fixtures.quantity(Double(operation), start: Double(operation))
                            }
                            mine += try await store.save(samples, source: source).results.map(\.uuid)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // A commit of another type ends the follower once it has caught up past every write.
        let end = try await store.save([Fixtures.quantity(Fixtures.heartRate, 60, "count/min")], source: Fixtures.app)
        let (live, anchor, problems) = try await follower.value
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(anchor == end.anchor)
        let stored = Set(try await store.all(Fixtures.steps).map(\.uuid))
        #expect(live == stored)
        #expect(!stored.isEmpty)
        // The rule anchored reads walk by: a sample's row id is its change position, shared with
        // no deletion and not above the latest change.
        let database = try Database(path: temporary.path, create: false, readOnly: true)
        defer { database.close() }
        let shared = try database.scalarInt("SELECT count(*) FROM samples JOIN tombstones ON tombstones.seq = samples.id")
        #expect(shared == 0)
        #expect(try database.scalarInt("SELECT max(id) FROM samples") ?? 0 <= Int64(clamping: anchor.rawValue))
        #expect(try await store.anchoredWire(descriptors, anchor: nil, encoder: WireEncodingTests.encoder).added == stored.count)
    }

    @Test("readers run while a long write is in progress")
    func readersDoNotWaitForTheWriter() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save([Fixtures.quantity(1)], source: Fixtures.app)
        let big = (0..<50_000).map { Fixtures.quantity(Double($0), start: Double($0)) }
        async let write = store.save(big, source: Fixtures.app)
        var reads = 0
        for _ in 0..<20 {
            let count = try await store.count(Fixtures.steps)
            #expect(count == 1 || count == 50_001)
            reads += 1
        }
        _ = try await write
        #expect(reads == 20)
        #expect(try await store.count(Fixtures.steps) == 50_001)
    }
}
