import Foundation
import SalusAdmin
import SalusKit
import SalusStore
import SalusTestSupport
import Testing

/// An Apple Health import through the owner's client, what `salusctl import` does, against the
/// daemon's services in process.
@Suite("AdminClient: Apple Health import")
struct AdminClientImportTests {
    /// `data` as export.xml in 8 KiB chunks, then each side file in two chunks, its last marked.
    static func chunks(_ data: Data, sideFiles: [(String, Data)]) -> AsyncThrowingStream<ImportChunk, any Error> {
        AsyncThrowingStream { continuation in
            var offset = 0
            while offset < data.count {
                let end = min(offset + 8192, data.count)
                continuation.yield(.export(data.subdata(in: offset..<end)))
                offset = end
            }
            for (path, file) in sideFiles {
                let half = file.count / 2
                continuation.yield(.sideFile(path, file.prefix(half), endOfFile: false))
                continuation.yield(.sideFile(path, file.dropFirst(half), endOfFile: true))
            }
            continuation.finish()
        }
    }

    /// Every event of an import of `data`.
    static func events(_ admin: AdminClient, _ data: Data, sideFiles: [(String, Data)], options: ImportOptions) async throws -> [ImportEvent] {
        var events: [ImportEvent] = []
        for try await event in admin.importAppleHealth(chunks(data, sideFiles: sideFiles), options: options) { events.append(event) }
        return events
    }

    @Test("an export imports through progress events then one report last: saved by source, a bad record skipped with its line, field and value; the same export again keeps what is there")
    func importWithProgress() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        var text = String(decoding: ImportProgressTests.export(heartRates: 300), as: UTF8.self)
        text = text.replacingOccurrences(
            of: "</HealthData>",
            with: " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" "
                + "startDate=\"2026-11-20 10:00:00 +0100\" endDate=\"2026-11-20 10:00:00 +0100\" value=\"fast\"/>\n</HealthData>")
        let data = Data(text.utf8)
        let sideFiles = [("workout-routes/route_1.gpx", Data(ImportModernWorkoutTests.gpx.utf8))]
        let options = ImportOptions(exportBytes: UInt64(data.count), sideFiles: 1)

        let events = try await Self.events(admin, data, sideFiles: sideFiles, options: options)
        let progress = events.compactMap { if case .progress(let step) = $0 { step } else { nil } }
        guard case .report(let report)? = events.last else { Issue.record("the last event is not the report: \(events.last as Any)"); return }
        #expect(events.dropLast().allSatisfy { if case .progress = $0 { true } else { false } }, "one report, last")
        #expect(!progress.isEmpty)
        #expect(progress.last?.done == true && progress.last?.sideFilesProcessed == 1, "\(progress.last as Any)")
        #expect(report.saved == 302 && report.skipped == 1, "\(report)")
        #expect(report.sources["Watch"]?.hasPrefix("applehealth.") == true, "\(report.sources)")
        let problem = try #require(report.problems.first)
        #expect(problem.value == "fast" && problem.element.contains("Record") && problem.line > 300, "\(problem)")
        #expect(!report.dryRun)

        let json = try #require(
            JSONSerialization.jsonObject(with: Data(try AdminJSON.text(importEvent: .report(report)).utf8)) as? [String: Any])
        #expect((json["report"] as? [String: Any])?["saved"] as? Int == 302, "64-bit counts as numbers: \(json)")

        let again = try await Self.events(admin, data, sideFiles: sideFiles, options: options)
        guard case .report(let second)? = again.last else { Issue.record("no report: \(again.last as Any)"); return }
        #expect(second.saved == 0 && second.keptExisting == 302, "\(second)")
        await admin.close()
    }

    @Test("a dry run reports what it would save and saves nothing; what is not an export is refused with a SalusError")
    func dryRunAndRefusal() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let data = ImportProgressTests.export(heartRates: 20)
        let dry = try await Self.events(admin, data, sideFiles: [], options: ImportOptions(dryRun: true, exportBytes: UInt64(data.count)))
        guard case .report(let report)? = dry.last else { Issue.record("no report: \(dry.last as Any)"); return }
        #expect(report.dryRun && report.saved == 21 && report.skipped == 1, "20 heart rates and the workout; its route's file never sent: \(report)")
        let real = try await Self.events(admin, data, sideFiles: [], options: ImportOptions())
        guard case .report(let saved)? = real.last else { Issue.record("no report: \(real.last as Any)"); return }
        #expect(saved.saved == 21 && saved.keptExisting == 0, "the dry run saved nothing: \(saved)")

        do {
            _ = try await Self.events(admin, Data("{\"not\": \"xml\"}".utf8), sideFiles: [], options: ImportOptions())
            Issue.record("JSON imported as an export")
        } catch let error as SalusError {
            #expect(error.code == .invalidArgument, "\(error)")
        }
        await admin.close()
    }

    /// Iterates a ``ChunkReader`` stream for the import and lets go of it when the import ends.
    final class ReaderFeed: @unchecked Sendable {
        var chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        init(_ produce: @escaping ChunkReader.Producer) { chunks = ChunkReader.stream(produce).makeAsyncIterator() }
        func next() async throws -> ImportChunk? {
            guard let data = try await chunks?.next() else { return nil }
            return .export(data)
        }
    }

    /// A flag the reading thread sets when its producer returns.
    final class Ended: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    /// The import the daemon's save refuses while `salusctl import`'s reader is chunks ahead of
    /// what was sent: the import ends with the daemon's error, the reader stops and lets go of
    /// its thread, and nothing traps. (The reader's DispatchSemaphore, released by its thread with
    /// read-ahead chunks never taken, was libdispatch's "semaphore deallocated while in use": SIGILL.)
    static func importRefused(_ server: ServerHarness, _ data: Data, ended: Ended) async throws -> (any Error)? {
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        defer { Task { await admin.close() } }
        let feed = ReaderFeed { consume in
            defer { ended.set() }
            var offset = 0
            while offset < data.count {
                let end = min(offset + 8192, data.count)
                try consume(data.subdata(in: offset..<end))
                offset = end
            }
        }
        let options = ImportOptions(exportBytes: UInt64(data.count))
        do {
            for try await _ in admin.importAppleHealth(AsyncThrowingStream(unfolding: { try await feed.next() }), options: options) {}
        } catch {
            return error
        }
        return nil
    }

    @Test("a save the daemon refuses mid-import ends it with the daemon's error while the reader is chunks ahead; the reader stops without a trap")
    func saveRefusedMidImport() async throws {
        let server = try await ServerHarness.start()
        let store = try Database(path: server.dataDirectory.appendingPathComponent("salus.sqlite").path)
        try store.execute(
            "CREATE TRIGGER refuse_samples BEFORE INSERT ON samples BEGIN "
                + "SELECT RAISE(ABORT, 'UNIQUE constraint failed: samples.app_ref, samples.type_id, samples.sync_identifier'); END")
        let ended = Ended()
        let error = try await Self.importRefused(server, ImportProgressTests.export(heartRates: 20_000), ended: ended)
        let failure = try #require(error as? SalusError, "the import ended with \(error as Any), not the daemon's error")
        #expect("\(failure)".contains("UNIQUE constraint failed: samples.app_ref, samples.type_id, samples.sync_identifier"), "\(failure)")
        // The reader stops at its next chunk, far before the export's end; its thread then lets
        // go of what it holds (where the trap was).
        let deadline = ContinuousClock.now + .seconds(5)
        while !ended.isSet, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(ended.isSet, "the reading thread did not stop")
        try await Task.sleep(for: .milliseconds(100))
        await server.stop()
    }

    /// The error a source of chunks throws (a file that cannot be read further).
    struct ReadFailed: Error, Equatable {}

    @Test("a source of chunks that throws part way ends the import with its error, at once: the daemon, still waiting for chunks, is not left to hang the call")
    func sourceFails() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        defer { Task { await admin.close() } }
        let data = ImportProgressTests.export(heartRates: 200)
        let chunks = AsyncThrowingStream<ImportChunk, any Error> { continuation in
            continuation.yield(.export(data.prefix(data.count / 2)))
            continuation.finish(throwing: ReadFailed())
        }
        let work = Task {
            for try await _ in admin.importAppleHealth(chunks, options: ImportOptions(exportBytes: UInt64(data.count))) {}
        }
        // Without an answer in 30 s, the iteration is ended here, and the test fails. (Under a
        // full parallel run, 10 s once passed before the answer came; the call that hung waited
        // for chunks with no end, and ended without an error.)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            work.cancel()
        }
        let result = await work.result
        watchdog.cancel()
        switch result {
        case .success: Issue.record("the import ended without an error")
        case .failure(let error): #expect(error is ReadFailed, "the import ended with \(error), not the source's error")
        }
        #expect(!work.isCancelled, "no answer in 30 s: the import was cancelled")
    }
}
