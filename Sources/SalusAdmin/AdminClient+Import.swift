import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// How an Apple Health export is imported.
public struct ImportOptions: Sendable, Hashable {
    /// Also set the owner's characteristics (date of birth, sex, blood type, skin type).
    public var characteristics: Bool
    /// Read and check everything, save nothing.
    public var dryRun: Bool
    /// export.xml's size in bytes, from which the daemon estimates the records ahead (0: unknown).
    public var exportBytes: UInt64
    /// How many side files follow export.xml.
    public var sideFiles: UInt64
    /// `importFiles`: save a file's workout even when the same workout from another source is
    /// stored already, instead of reporting it as an alternate of that one.
    public var keepDuplicates: Bool

    public init(characteristics: Bool = false, dryRun: Bool = false, exportBytes: UInt64 = 0, sideFiles: UInt64 = 0, keepDuplicates: Bool = false) {
        self.characteristics = characteristics
        self.dryRun = dryRun
        self.exportBytes = exportBytes
        self.sideFiles = sideFiles
        self.keepDuplicates = keepDuplicates
    }
}

/// A piece of the export sent to the daemon: export.xml's bytes in order, then each side file's
/// (`workout-routes/route_1.gpx`), its last chunk marked `endOfFile`.
public struct ImportChunk: Sendable, Hashable {
    /// The side file's path inside the export; nil for export.xml.
    public var path: String?
    public var data: Data
    /// The last chunk of a side file.
    public var endOfFile: Bool

    /// Bytes of export.xml.
    public static func export(_ data: Data) -> ImportChunk {
        ImportChunk(path: nil, data: data, endOfFile: false)
    }

    /// Bytes of the side file at `path`; `endOfFile` on its last chunk.
    public static func sideFile(_ path: String, _ data: Data, endOfFile: Bool) -> ImportChunk {
        ImportChunk(path: path, data: data, endOfFile: endOfFile)
    }
}

/// How far an import has come, by what the daemon has processed (saved), not what it was sent.
public struct ImportProgress: Sendable, Hashable {
    public var bytesProcessed: UInt64
    public var bytesTotal: UInt64
    /// Records processed, of `recordsTotal` (an estimate until `exportRead`).
    public var recordsProcessed: UInt64
    public var recordsTotal: UInt64
    /// export.xml has been read to its end: `recordsTotal` is exact.
    public var exportRead: Bool
    public var sideFilesProcessed: UInt64
    public var sideFilesTotal: UInt64
    public var saved: UInt64
    public var keptExisting: UInt64
    public var skipped: UInt64
    public var elapsedSeconds: Double
    /// The last progress event.
    public var done: Bool
}

/// A record the import skipped: where, which field, its value and what was expected.
public struct ImportProblem: Sendable, Hashable {
    public var line: UInt32
    public var element: String
    public var field: String
    public var value: String
    public var expected: String
    /// `importFiles`: the file (its path as sent) and the byte of it where the problem is.
    public var file: String = ""
    public var offset: UInt64 = 0
}

/// What an import did.
public struct ImportReport: Sendable, Hashable {
    public var bytesRead: UInt64
    /// Elements read, by name.
    public var elements: [String: UInt64]
    /// Samples saved (to save, in a dry run).
    public var saved: UInt64
    /// Samples already in the store, kept.
    public var keptExisting: UInt64
    public var skipped: UInt64
    /// The first problems of the skipped records.
    public var problems: [ImportProblem]
    /// Elements and files not imported, counted.
    public var notImported: [String: UInt64]
    /// Each source of the export and the app id its samples are saved under.
    public var sources: [String: String]
    public var characteristicsSet: [String]
    public var dryRun: Bool
    /// Activity goal entries set from the export's summaries.
    public var goalsSet: UInt64
    /// `importFiles`: each file sent, in order, with its workouts.
    public var files: [ImportedFile] = []
    /// `importAppleHealth`: the export's workouts that are the same workout as one stored from
    /// another source, each kept as an alternate of it (``ImportedWorkout/alternateOf``).
    public var alternates: [ImportedWorkout] = []
}

/// An event of an import: progress while it runs, the report last.
public enum ImportEvent: Sendable, Hashable {
    case progress(ImportProgress)
    case report(ImportReport)
}

extension AdminClient {
    /// Imports an Apple Health export (salus.v1.Import/ImportAppleHealthWithProgress): `chunks`
    /// are sent as the daemon reads them, `options` with the first. The sequence gives
    /// ``ImportEvent/progress(_:)`` events as the daemon processes the export, then one
    /// ``ImportEvent/report(_:)`` last; a refusal of the daemon (or an error of `chunks`) ends it
    /// with that error, a ``SalusError`` for the daemon's. Ending the iteration early cancels
    /// the import.
    public func importAppleHealth(
        _ chunks: AsyncThrowingStream<ImportChunk, any Error>, options: ImportOptions = ImportOptions()
    ) -> AsyncThrowingStream<ImportEvent, any Error> {
        importStream(SalusMethods.Import.importAppleHealthWithProgress, chunks, options: options)
    }

    /// A streamed import (Apple Health or activity files): `chunks` sent in order with `options`
    /// on the first (alone when there are none), the daemon's progress and report given back, a
    /// refusal as ``SalusError``; ending the iteration early cancels the call.
    ///
    /// The chunks are sent by a task of the call's own, which the call awaits before it ends
    /// whatever ended it, so nothing is still reading `chunks` once the sequence has finished.
    /// An error of `chunks` (a file that cannot be read further) cancels the call, since the
    /// daemon would wait for the rest, and ends the sequence with that error.
    func importStream(
        _ method: BidirectionalMethod<Salus_V1_ImportChunk, Salus_V1_ImportEvent>,
        _ chunks: AsyncThrowingStream<ImportChunk, any Error>, options: ImportOptions
    ) -> AsyncThrowingStream<ImportEvent, any Error> {
        let rpc = self.rpc
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await rpc.bidirectionalStreaming(method) { writer, events in
                        let sourceFailure = SourceFailure()
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                var first = true
                                var iterator = chunks.makeAsyncIterator()
                                while true {
                                    let next: ImportChunk?
                                    do {
                                        next = try await iterator.next()
                                    } catch {
                                        // The daemon waits for the rest: the call ends here.
                                        sourceFailure.set(error)
                                        events.cancel()
                                        throw error
                                    }
                                    guard let chunk = next else { break }
                                    var message = Salus_V1_ImportChunk()
                                    if first { message.options = options.proto }
                                    first = false
                                    message.path = chunk.path ?? ""
                                    message.data = chunk.data
                                    message.endOfFile = chunk.endOfFile
                                    try await writer.write(message)
                                }
                                if first { try await writer.write(Salus_V1_ImportChunk.with { $0.options = options.proto }) }
                                writer.finish()
                            }
                            do {
                                for try await event in events {
                                    switch event.event {
                                    case .progress(let progress)?: continuation.yield(.progress(ImportProgress(progress)))
                                    case .report(let report)?: continuation.yield(.report(ImportReport(report)))
                                    case nil: break
                                    }
                                }
                            } catch {
                                group.cancelAll()
                                // Awaited, not left running; the source's own error, when it
                                // ended the call, is the one to give.
                                while (try? await group.next()) != nil {}
                                throw sourceFailure.error ?? error
                            }
                            // The daemon has ended the call (it answers once it has read the
                            // last chunk): nothing the sender has left would be read.
                            group.cancelAll()
                            while (try? await group.next()) != nil {}
                            if let failure = sourceFailure.error { throw failure }
                        }
                    }
                    continuation.finish()
                } catch let error as RPCError {
                    continuation.finish(throwing: SalusError(error))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The error the source of an import's chunks threw, set by the sending task and read by the
/// call once that task has ended.
private final class SourceFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?

    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}

extension ImportOptions {
    var proto: Salus_V1_ImportOptions {
        .with {
            $0.characteristics = characteristics
            $0.dryRun = dryRun
            $0.exportBytes = exportBytes
            $0.sideFiles = sideFiles
            $0.keepDuplicates = keepDuplicates
        }
    }
}

extension ImportProgress {
    init(_ p: Salus_V1_ImportProgress) {
        self.init(
            bytesProcessed: p.bytesProcessed, bytesTotal: p.bytesTotal, recordsProcessed: p.recordsProcessed,
            recordsTotal: p.recordsTotal, exportRead: p.exportRead, sideFilesProcessed: p.sideFilesProcessed,
            sideFilesTotal: p.sideFilesTotal, saved: p.saved, keptExisting: p.keptExisting, skipped: p.skipped,
            elapsedSeconds: p.elapsedSeconds, done: p.done)
    }

    var proto: Salus_V1_ImportProgress {
        .with {
            $0.bytesProcessed = bytesProcessed
            $0.bytesTotal = bytesTotal
            $0.recordsProcessed = recordsProcessed
            $0.recordsTotal = recordsTotal
            $0.exportRead = exportRead
            $0.sideFilesProcessed = sideFilesProcessed
            $0.sideFilesTotal = sideFilesTotal
            $0.saved = saved
            $0.keptExisting = keptExisting
            $0.skipped = skipped
            $0.elapsedSeconds = elapsedSeconds
            $0.done = done
        }
    }
}

extension ImportReport {
    init(_ r: Salus_V1_ImportReport) {
        self.init(
            bytesRead: r.bytesRead, elements: r.elements, saved: r.saved, keptExisting: r.keptExisting, skipped: r.skipped,
            problems: r.problems.map {
                ImportProblem(
                    line: $0.line, element: $0.element, field: $0.field, value: $0.value, expected: $0.expected, file: $0.file,
                    offset: $0.offset)
            },
            notImported: r.notImported, sources: r.sources, characteristicsSet: r.characteristicsSet, dryRun: r.dryRun,
            goalsSet: r.goalsSet, files: r.files.map(ImportedFile.init),
            alternates: r.alternates.map(ImportedWorkout.init))
    }

    var proto: Salus_V1_ImportReport {
        .with {
            $0.bytesRead = bytesRead
            $0.elements = elements
            $0.saved = saved
            $0.keptExisting = keptExisting
            $0.skipped = skipped
            $0.problems = problems.map { problem in
                .with {
                    $0.line = problem.line
                    $0.element = problem.element
                    $0.field = problem.field
                    $0.value = problem.value
                    $0.expected = problem.expected
                    $0.file = problem.file
                    $0.offset = problem.offset
                }
            }
            $0.notImported = notImported
            $0.sources = sources
            $0.characteristicsSet = characteristicsSet
            $0.dryRun = dryRun
            $0.goalsSet = goalsSet
            $0.files = files.map(\.proto)
            $0.alternates = alternates.map(\.proto)
        }
    }
}
