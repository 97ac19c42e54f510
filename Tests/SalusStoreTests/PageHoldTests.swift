import Foundation
import NIOCore
import SalusModel
import SalusStore
import Synchronization
import Testing

/// The pages a read holds before its consumer sends them are counted as they are read
/// (`PageHold`): salusd counts them against the app's buffered bytes, so a client that stops
/// reading cannot make it hold pages read ahead for it beyond that cap.
@Suite("Pages held for a consumer are counted")
struct PageHoldTests {
    /// Records what it is asked to count; refuses the count after `allowed` of them.
    final class Recorder: Sendable {
        let counted = Mutex<[Int]>([])
        let allowed: Int

        init(allowed: Int = .max) { self.allowed = allowed }

        var hold: PageHold {
            PageHold { bytes in
                try self.counted.withLock { counted in
                    guard counted.count < self.allowed else { throw StoreError(code: .invalidArgument, message: "over the test's budget") }
                    counted.append(bytes)
                }
            }
        }

        var sizes: [Int] { counted.withLock { $0 } }

        /// Waits until `count` pages were counted (a read ahead finishes on its own).
        func wait(for count: Int) async throws {
            for _ in 0..<500 where sizes.count < count { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test("a sample query's pages are each counted as they are read, the one read ahead before it is asked for; a count refused ends the query with its error")
    func samplePages() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<21).map { Fixtures.quantity(Double($0), start: Double($0) * 10) }, source: Fixtures.app)
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        let recorder = Recorder()
        var pages = try store.samples(query, pageSize: 8).wire(WireEncodingTests.encoder, firstPageSize: 2, hold: recorder.hold)
            .makeAsyncIterator()
        let first = try #require(try await pages.next())
        #expect(recorder.sizes.first == first.bytes.readableBytes)
        // The next page is read while the consumer holds the first, and counted as it is read.
        try await recorder.wait(for: 2)
        #expect(recorder.sizes.count == 2)
        var sizes = [first.bytes.readableBytes]
        while let page = try await pages.next() { sizes.append(page.bytes.readableBytes) }
        #expect(recorder.sizes == sizes)
        #expect(sizes.count == 4)

        // A refused count ends the query with the refusal, whichever page it falls on.
        let refusing = Recorder(allowed: 2)
        pages = try store.samples(query, pageSize: 8).wire(WireEncodingTests.encoder, firstPageSize: 2, hold: refusing.hold)
            .makeAsyncIterator()
        var delivered = 0
        await #expect(throws: StoreError.self) {
            while try await pages.next() != nil { delivered += 1 }
        }
        #expect(delivered == 2)
        await store.close()
    }

    @Test("an anchored read's pages, wire and model, are each counted as they are read, ahead too; the model page counts its samples' stored bytes")
    func anchoredPages() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let note = MetadataValue.string(String(repeating: "n", count: 10_000))
        _ = try await store.save(
            (0..<5).map { Fixtures.quantity(Double($0), start: Double($0), metadata: ["org.example.note": note]) }, source: Fixtures.app)
        let steps = [QueryDescriptor(type: Fixtures.steps)]

        let wire = Recorder()
        var changes = try store.anchoredWireChanges(steps, from: nil, pageSize: 2, encoder: WireEncodingTests.encoder, hold: wire.hold)
            .makeAsyncIterator()
        var sizes: [Int] = []
        while let batch = try await changes.next() {
            sizes.append(batch.result.changes.bytes.readableBytes)
            if batch.initialResultsComplete { break }
        }
        #expect(sizes.count == 3)
        #expect(wire.sizes == sizes)
        #expect(sizes.allSatisfy { $0 > 0 })

        let model = Recorder()
        var pages = try store.anchoredChanges(steps, from: nil, pageSize: 2, maxBytes: 1 << 20, hold: model.hold).makeAsyncIterator()
        let first = try #require(try await pages.next())
        #expect(first.result.storedBytes >= 20_000)
        #expect(model.sizes.first == first.result.storedBytes)
        try await model.wait(for: 2)
        #expect(model.sizes.count == 2, "the page after the first is read ahead and counted")
        await store.close()
    }
}
