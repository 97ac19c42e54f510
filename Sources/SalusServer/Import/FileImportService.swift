import Foundation
import SalusImport
import SalusModel
import SalusProto
import SalusRPC
import SalusStore

/// salus.v1.Import/ImportFiles: activity and device files (FIT; GPX, TCX and Gadgetbridge as
/// their readers come), each sent whole in chunks of its path (admin socket only).
///
/// - Each file's format is told again by its content (`SourceFormat.detect`), whatever the
///   client said, and its reader is `FileImporters.read`'s.
/// - A file is held until its last chunk, at most `ImportLimits.maximumSideFileBytes`; a larger
///   one is not imported, and named.
/// - What a file holds goes through the import's save path: each sample prepared and checked by
///   the one sample check (read-only types allowed: the person's own history), one that fails
///   skipped and reported; the source is the file's (`fit.garmin-fenix-2`); every sample carries
///   the sync identifier its reader gave it, so importing a file again adds nothing.
/// - A workout is saved first, alone, so that its route is saved with the store's UUID for it
///   (the one already there, on a second import); then its route and its samples, in batches.
/// - A file broken part way is imported up to the break; the report says where it stopped and
///   why (`ImportedFile.stopped_at`, `stop_reason`), and lists its other problems with their
///   bytes.
package struct FileImportService: Sendable {
    let store: SampleStore
    let limits: ImportLimits

    /// Creates the service.
    package init(store: SampleStore, limits: ImportLimits = .standard) {
        self.store = store
        self.limits = limits
    }

    /// Adds the method to the admin socket's router.
    package func register(into router: inout RPCRouter) {
        router.registerBidirectionalStreaming(SalusMethods.Import.importFiles, onEventLoop: false) {
            (chunks: RPCRequestStream<Salus_V1_ImportChunk>, writer: RPCWriter<Salus_V1_ImportEvent>, _) in
            let report = try await self.importFiles(chunks) { progress in
                try await writer.write(Salus_V1_ImportEvent.with { $0.progress = progress })
            }
            try await writer.write(Salus_V1_ImportEvent.with { $0.report = report })
        }
    }

    /// Samples per save.
    static let batchSize = 1000
    /// The most problems a report lists (all are counted).
    static let listedProblems = 100

    /// Imports the files the chunks carry, in their order; `progress` is called after each file
    /// with the files done.
    ///
    /// Two steps overlap: while one file's samples are checked and saved, the next file is
    /// received and read (decoded and mapped, `FileImporters.read`) on another core. The look-ahead
    /// is one file: the next file after that is not received until the one being saved is done, so
    /// at most two files are held at once (one saving, one read). Files are saved, and reported,
    /// in the order they came, exactly as one after another would.
    package func importFiles<Chunks: AsyncSequence>(
        _ chunks: Chunks, progress: ((Salus_V1_ImportProgress) async throws -> Void)? = nil
    ) async throws -> Salus_V1_ImportReport where Chunks.Element == Salus_V1_ImportChunk {
        var report = Salus_V1_ImportReport()
        let started = ContinuousClock.now
        let reader = FileReader(chunks.makeAsyncIterator(), limit: limits.maximumSideFileBytes, catalog: store.catalog)
        var next = Task { try await reader.next() }
        do {
            while let file = try await next.value {
                // The next file is received and read while this one saves.
                next = Task { try await reader.next() }
                let options = reader.options
                report.dryRun = options.dryRun
                try await importRead(file, dryRun: options.dryRun, keepDuplicates: options.keepDuplicates, into: &report)
                try await progress?(Salus_V1_ImportProgress.with {
                    $0.sideFilesProcessed = UInt64(report.files.count)
                    $0.sideFilesTotal = max(options.sideFiles, UInt64(report.files.count))
                    $0.saved = report.saved
                    $0.keptExisting = report.keptExisting
                    $0.skipped = report.skipped
                    $0.elapsedSeconds = Double((ContinuousClock.now - started).components.seconds)
                })
            }
        } catch {
            // Nothing is read after the import has stopped.
            next.cancel()
            _ = try? await next.value
            throw error
        }
        report.dryRun = reader.options.dryRun
        try await progress?(Salus_V1_ImportProgress.with {
            $0.sideFilesProcessed = UInt64(report.files.count)
            $0.sideFilesTotal = UInt64(report.files.count)
            $0.saved = report.saved
            $0.keptExisting = report.keptExisting
            $0.skipped = report.skipped
            $0.done = true
        })
        return report
    }

    /// One file received whole and read, ready to save: its path, its size, and what its reader
    /// made of it.
    package struct ReadFile: Sendable {
        package enum Outcome: Sendable {
            /// Larger than the side-file limit: not kept, not read.
            case tooLarge
            /// No known format; the text says what it starts with.
            case unknownFormat(String)
            /// Its reader refused it whole.
            case refused(SourceFormat, FileProblem)
            case read(SourceFormat, FileImport)
        }
        package var path: String
        package var byteCount: Int
        package var outcome: Outcome

        /// Tells `bytes`' format by their content and reads them with its reader.
        package init(path: String, bytes: [UInt8], catalog: TypeCatalog) {
            self.path = path
            byteCount = bytes.count
            guard let format = SourceFormat.detect(bytes.prefix(SourceFormat.prefixLength)) else {
                outcome = .unknownFormat(
                    "not a FIT, GPX or TCX file nor a Gadgetbridge database (it starts with \(FileImportService.describe(bytes.prefix(16))))")
                return
            }
            do throws(FileProblem) {
                outcome = .read(format, try FileImporters.read(bytes, format: format, catalog: catalog))
            } catch {
                outcome = .refused(format, error)
            }
        }

        init(tooLarge path: String) {
            self.path = path
            byteCount = 0
            outcome = .tooLarge
        }
    }

    /// Gathers each file's chunks and reads the file when its last chunk is in. Used by one task
    /// at a time: each `next()` starts after the one before has returned.
    final class FileReader<Chunks: AsyncIteratorProtocol>: @unchecked Sendable where Chunks.Element == Salus_V1_ImportChunk {
        private var chunks: Chunks
        private let limit: Int
        private let catalog: TypeCatalog
        private var first = true
        private var ended = false
        /// Files received whole, not read yet (at most two: one ended by the next one's chunk,
        /// which may itself be a whole file).
        private var ready: [(path: String, data: [UInt8], tooLarge: Bool)] = []
        /// The file whose chunks are coming in.
        private var current: (path: String, data: [UInt8], tooLarge: Bool)?
        /// The options of the first chunk; read by the saving task after a `next()` has returned.
        private(set) var options = Salus_V1_ImportOptions()

        init(_ chunks: Chunks, limit: Int, catalog: TypeCatalog) {
            self.chunks = chunks
            self.limit = limit
            self.catalog = catalog
        }

        /// The next file, received whole and read; nil after the last.
        func next() async throws -> ReadFile? {
            while ready.isEmpty && !ended {
                try Task.checkCancellation()
                guard let chunk = try await chunks.next() else {
                    ended = true
                    if let file = current { ready.append(file) }
                    current = nil
                    break
                }
                if first {
                    options = chunk.options
                    first = false
                }
                guard !chunk.path.isEmpty else {
                    if chunk.data.isEmpty { continue }
                    throw RPCError.invalidArgument(
                        field: "path", value: "\"\" with \(chunk.data.count) bytes", expected: "each chunk of a file carrying the file's path")
                }
                // A chunk of another path ends the file before it, even without its last chunk marked.
                if let file = current, file.path != chunk.path {
                    ready.append(file)
                    current = nil
                }
                if current == nil { current = (chunk.path, [], false) }
                if current!.data.count + chunk.data.count > limit {
                    current!.tooLarge = true
                    current!.data = []
                } else if !current!.tooLarge {
                    current!.data.append(contentsOf: chunk.data)
                }
                if chunk.endOfFile, let file = current {
                    ready.append(file)
                    current = nil
                }
            }
            guard !ready.isEmpty else { return nil }
            return read(ready.removeFirst())
        }

        private func read(_ file: (path: String, data: [UInt8], tooLarge: Bool)) -> ReadFile {
            file.tooLarge ? ReadFile(tooLarge: file.path) : ReadFile(path: file.path, bytes: file.data, catalog: catalog)
        }
    }

    /// Imports one file, adding what became of it to `report` (its entry in `files`, the counts,
    /// its problems).
    /// `keepDuplicates`: save each workout even when the same workout from another source is
    /// stored (`WorkoutDuplicates`), instead of keeping it as an alternate of that one.
    package func importFile(
        path: String, bytes: [UInt8], dryRun: Bool, keepDuplicates: Bool = false, into report: inout Salus_V1_ImportReport
    ) async throws {
        try await importRead(ReadFile(path: path, bytes: bytes, catalog: store.catalog), dryRun: dryRun, keepDuplicates: keepDuplicates, into: &report)
    }

    /// Saves a file its reader has read (`importFile`'s second half), adding what became of it to
    /// `report`.
    package func importRead(_ file: ReadFile, dryRun: Bool, keepDuplicates: Bool = false, into report: inout Salus_V1_ImportReport) async throws {
        let path = file.path
        var entry = Salus_V1_ImportedFile()
        entry.path = path
        /// Lists `problem` and counts the records it skips: one for a refusal (a record the check
        /// refused, the file refused or cut short), what it says it left out for a note of the
        /// reader (`FileProblem.recordsLeftOut`: 0 for one that leaves nothing out).
        func problem(_ problem: FileProblem, skipped: Int = 1) {
            report.skipped += UInt64(skipped)
            guard report.problems.count < Self.listedProblems else { return }
            report.problems.append(Salus_V1_ImportProblem.with {
                $0.file = path
                $0.offset = UInt64(max(0, problem.offset ?? 0))
                $0.element = entry.format.isEmpty ? "file" : entry.format
                $0.field = problem.field
                $0.value = problem.value
                $0.expected = problem.expected
            })
        }
        defer { report.files.append(entry) }
        let format: SourceFormat
        let read: FileImport
        switch file.outcome {
        case .tooLarge:
            entry.notImported = "more than \(limits.maximumSideFileBytes) bytes"
            report.skipped += 1
            return
        case .unknownFormat(let description):
            entry.notImported = description
            report.skipped += 1
            return
        case .refused(let refusedFormat, let error):
            entry.format = refusedFormat.rawValue
            entry.notImported = error.description
            problem(error)
            return
        case .read(let readFormat, let fileImport):
            format = readFormat
            read = fileImport
        }
        entry.format = format.rawValue
        entry.source = read.source.appID
        report.sources[read.source.name] = read.source.appID
        report.elements[format.displayName, default: 0] += 1
        if let stop = read.stop {
            entry.stopped = true
            entry.stoppedAt = UInt64(max(0, stop.offset ?? 0))
            entry.stopReason = "\(stop.field): \(stop.value)"
            problem(stop)
        }
        for note in read.problems { problem(note, skipped: note.recordsLeftOut) }
        var counts = (saved: UInt64(0), kept: UInt64(0))
        func count(_ outcome: SaveOutcome) {
            switch outcome {
            case .saved, .replaced: counts.saved += 1
            case .keptExisting, .present, .deletedHere: counts.kept += 1
            }
        }
        /// The samples that pass the one sample check; the others are problems.
        func checked(_ samples: [Sample], _ name: String) -> [Sample] {
            store.catalog.prepareForSaving(samples, at: name, allowReadOnly: true) { _, error in
                problem(FileProblem(offset: nil, field: error.field, value: error.value, expected: error.expected))
            }
        }
        func save(_ samples: [Sample]) async throws -> [SaveResult] {
            guard !samples.isEmpty else { return [] }
            if dryRun {
                counts.saved += UInt64(samples.count)
                return samples.map { SaveResult(uuid: $0.uuid, outcome: .saved) }
            }
            var results: [SaveResult] = []
            var start = samples.startIndex
            while start < samples.endIndex {
                let batch = Array(samples[start..<min(start + Self.batchSize, samples.endIndex)])
                let response = try await storeCall {
                    try await store.save(batch, source: read.source, options: SaveOptions(uuidPolicy: .assign))
                }
                for result in response.results { count(result.outcome) }
                results += response.results
                start += batch.count
            }
            return results
        }
        /// `save(checked(samples, name))`, in the same batches, with each batch checked while the
        /// store saves the one before: the check and the writer each use a core rather than
        /// taking turns. Saves stay in order, one at a time. Then the samples `more` makes, a
        /// batch at a time: at most two batches of them are in memory at once.
        func checkAndSave(_ samples: [Sample], _ name: String, then more: (any SampleBatches)? = nil) async throws {
            var more = more
            guard !dryRun else {
                _ = try await save(checked(samples, name))
                while case let next = more?.next(Self.batchSize) ?? [], !next.isEmpty { _ = try await save(checked(next, name)) }
                return
            }
            var pending: Task<SaveResponse, any Error>?
            var batch: [Sample] = []
            batch.reserveCapacity(Self.batchSize)
            func send() async throws {
                if let previous = pending {
                    pending = nil
                    for result in try await previous.value.results { count(result.outcome) }
                }
                guard !batch.isEmpty else { return }
                let sending = batch
                batch.removeAll(keepingCapacity: true)
                let source = read.source
                pending = Task { try await storeCall { try await store.save(sending, source: source, options: SaveOptions(uuidPolicy: .assign)) } }
            }
            do {
                var start = samples.startIndex
                while start < samples.endIndex {
                    let end = min(start + Self.batchSize - batch.count, samples.endIndex)
                    batch += checked(Array(samples[start..<end]), name)
                    start = end
                    if batch.count >= Self.batchSize { try await send() }
                }
                while more != nil, case let next = more!.next(Self.batchSize - batch.count), !next.isEmpty {
                    batch += checked(next, name)
                    if batch.count >= Self.batchSize { try await send() }
                }
                try await send()
                try await send()
            } catch {
                // No save goes on after the import has stopped.
                if let previous = pending { _ = try? await previous.value }
                throw error
            }
        }
        let duplicates = WorkoutDuplicates(store: store)
        for fileWorkout in read.workouts {
            guard let workout = checked([fileWorkout.workout], "workout").first else { continue }
            var listed = WorkoutDuplicates.listed(workout, source: read.source.appID)
            listed.distance = fileWorkout.distance ?? 0
            var samples = fileWorkout.readySamples
            if !keepDuplicates, let kept = try await duplicates.stored(sameAs: workout, source: read.source) {
                // The same workout from another source stays the workout; this one is kept as its
                // alternate, with its figures, and its samples are saved under this source
                // without a second workout or route.
                WorkoutDuplicates.markAlternate(&listed, of: kept)
                let alternate = try await save(checked([WorkoutDuplicates.alternate(workout, of: kept)], "workout"))
                if !dryRun, let saved = alternate.first { listed.alternateUuid = saved.uuid.uuidString }
                try await checkAndSave(samples, "sample", then: fileWorkout.moreSamples)
                entry.workouts.append(listed)
                continue
            }
            guard let result = try await save([workout]).first else { continue }
            listed.uuid = result.uuid.uuidString
            listed.keptExisting = result.outcome == .keptExisting
            if !fileWorkout.route.isEmpty {
                listed.routeLocations = UInt64(fileWorkout.route.count)
                let first = fileWorkout.route[0].timestamp
                samples.append(Sample(
                    type: "HKWorkoutRouteTypeIdentifier", startDate: first, endDate: max(first, fileWorkout.route[fileWorkout.route.count - 1].timestamp),
                    value: .workoutRoute(WorkoutRouteValue(workoutUUID: result.uuid, locations: fileWorkout.route)),
                    sourceRevision: read.source, device: workout.device,
                    metadata: [MetadataKey.syncIdentifier: .string(fileWorkout.routeSyncIdentifier), MetadataKey.syncVersion: .number(1)]))
            }
            try await checkAndSave(samples, "sample", then: fileWorkout.moreSamples)
            entry.workouts.append(listed)
        }
        try await checkAndSave(read.samples, "sample")
        entry.saved = counts.saved
        entry.keptExisting = counts.kept
        report.saved += counts.saved
        report.keptExisting += counts.kept
        report.bytesRead += UInt64(file.byteCount)
    }

    /// The first bytes of a file, readable: text when they are printable, else hexadecimal.
    static func describe(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) { return "\"\(String(decoding: bytes, as: UTF8.self))\"" }
        return bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
