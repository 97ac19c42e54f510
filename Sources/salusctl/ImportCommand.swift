import ArgumentParser
import Dispatch
import Foundation
import SalusAdmin
import SalusImport
import SalusStore
import SalusProto
import SalusRPC
import SwiftProtobuf
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `salusctl import PATH`: an Apple Health export into the store.
struct Import: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import an Apple Health export (the zip, its unpacked folder, or export.xml), or FIT files (one, a folder of them, or a zip).",
        discussion: """
            The file is streamed to the daemon and read as it arrives, never unpacked to disk. Each source
            of the export (an iPhone, a watch, an app) is saved under its own app id, applehealth.<name>.
            Importing the same export again adds nothing. This version imports records (quantities and
            categories), correlations, workouts with their routes (inline, or the GPX files of \
            workout-routes/), audiograms, vision prescriptions, clinical records (their FHIR files \
            in clinical-records/), electrocardiograms (electrocardiograms/*.csv) and the activity \
            goals. The files beside export.xml are sent after it. What is not imported is counted \
            and reported, never dropped silently.

            A FIT file (a watch's or bike computer's activity or monitoring file), or a folder searched             to any depth (a mounted watch's GARMIN/Activity) or a zip of them, is told by its content,             whatever its name; each becomes workouts with their routes, legs, laps and samples, under             the source fit.<device>. The report names every file and workout, and where a broken             file stopped.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("export.zip, the apple_health_export folder, or export.xml (Export.xml, 导出.xml); or a FIT file, a folder or a zip of them.", valueName: "path"))
    var path: String

    @Flag(name: .long, help: "Also set your characteristics (date of birth, sex, blood type, skin type) from the export.")
    var characteristics = false

    @Flag(name: .long, help: "Read and check everything, save nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Save an imported workout even when the same workout from another source is stored already (by default it is kept as an alternate of that one, not saved twice).")
    var keepDuplicates = false

    @Flag(name: .long, help: "Print JSON lines: each progress event, then the report (each a salus.v1.ImportEvent).")
    var json = false

    /// The names export.xml has had.
    static let exportNames: Set<String> = ["export.xml", "Export.xml", "导出.xml"]

    func run(admin: AdminClient) async throws {
        // What the path holds is told by content (ImportCommand+Files.swift): activity and device
        // files go to ImportFiles, an Apple Health export below.
        if case .files(let files, let skipped) = try ImportInput.classify(path) {
            try await runFiles(admin: admin, files, skipped: skipped)
            return
        }
        let source = try ExportSource.open(path)
        let sideFiles = try source.sideFiles()
        let progress = Progress(json: json)
        // The daemon estimates the records ahead from export.xml's size, and counts the side files.
        let options = ImportOptions(
            characteristics: characteristics, dryRun: dryRun, exportBytes: UInt64(max(0, source.size)),
            sideFiles: UInt64(sideFiles.count), keepDuplicates: keepDuplicates)
        var answer: ImportReport?
        for try await event in admin.importAppleHealth(ChunkFeed(source, sideFiles).stream(), options: options) {
            switch event {
            case .progress(let step):
                progress.show(step)
                if json { print(try AdminJSON.text(importEvent: event)) }
            case .report(let last):
                answer = last
            }
        }
        progress.finish()
        guard var report = answer else { throw CommandFailure("the daemon ended the import without a report") }
        // export_cda.xml renders export.xml's records again as HL7 CDA: importing it would
        // count each record twice, so it is named as not imported.
        if source.hasCDARendering() { report.notImported["export_cda.xml", default: 0] += 1 }
        if json {
            print(try AdminJSON.text(importEvent: .report(report)))
            return
        }
        Self.printReport(report, from: source.description)
        if !dryRun { try await DataRange.printWhereToLook(admin: admin) }
    }

    /// export.xml's chunks, then the side files export.xml may refer to, each in chunks of its
    /// own path, its last one marked, read only as the client sends them (each cut one byte past
    /// the daemon's limit, which it then reports).
    final class ChunkFeed: @unchecked Sendable {
        var export: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        var sideFiles: [ExportSource.SideFile]
        var current: (path: String, chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator, held: Data?)?

        init(_ source: ExportSource, _ sideFiles: [ExportSource.SideFile]) {
            export = source.chunks().makeAsyncIterator()
            self.sideFiles = sideFiles
        }

        func stream() -> AsyncThrowingStream<ImportChunk, any Error> {
            AsyncThrowingStream(unfolding: { try await self.next() })
        }

        func next() async throws -> ImportChunk? {
            if export != nil {
                if let data = try await export!.next() { return .export(data) }
                export = nil
            }
            while true {
                if current == nil {
                    guard !sideFiles.isEmpty else { return nil }
                    let file = sideFiles.removeFirst()
                    current = (file.path, ChunkReader.stream(file.produce).makeAsyncIterator(), nil)
                }
                let path = current!.path
                if let chunk = try await current!.chunks.next() {
                    let previous = current!.held
                    current!.held = chunk
                    if let previous { return .sideFile(path, previous, endOfFile: false) }
                    continue
                }
                let last = current!.held ?? Data()
                current = nil
                return .sideFile(path, last, endOfFile: true)
            }
        }
    }

    static func printReport(_ report: ImportReport, from name: String) {
        print("\(report.dryRun ? "Checked" : "Imported") \(name): \(report.saved) samples \(report.dryRun ? "to save" : "saved"), "
            + "\(report.keptExisting) already there, \(report.skipped) skipped")
        for (element, count) in report.elements.sorted(by: { $0.key < $1.key }) {
            let note = report.notImported[element].map { _ in " (not imported yet)" } ?? ""
            print("  \(element): \(count)\(note)")
        }
        for (element, count) in report.notImported.sorted(by: { $0.key < $1.key }) where report.elements[element] == nil {
            print("  \(element): \(count) (not imported yet)")
        }
        if !report.sources.isEmpty {
            print("sources:")
            for (name, appID) in report.sources.sorted(by: { $0.key < $1.key }) { print("  \(name) → \(appID)") }
        }
        if !report.alternates.isEmpty {
            print("the same workout from another source, stored already (kept as it is; each of these kept as its alternate, not saved as a second workout):")
            for workout in report.alternates {
                // "<app id> <uuid>" of the workout that stays.
                let kept = workout.alternateOf.split(separator: " ", maxSplits: 1).map(String.init)
                var line = "  \(workout.source) \(workout.start.formatted(Date.ISO8601FormatStyle()))"
                if workout.distance > 0 { line += String(format: ", %.2f km", workout.distance / 1000) }
                line += ": an alternate of the workout from \(kept.first ?? "")"
                if kept.count > 1 { line += " \(kept[1].lowercased())" }
                print(line)
                if !workout.statistics.isEmpty {
                    print("    its figures: " + workout.statistics.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
                }
            }
        }
        if report.goalsSet > 0 { print("activity goals: \(report.goalsSet) entries from the export's summaries") }
        if !report.characteristicsSet.isEmpty { print("characteristics set: " + report.characteristicsSet.joined(separator: ", ")) }
        if !report.problems.isEmpty {
            print("problems\(report.skipped > UInt64(report.problems.count) ? " (the first \(report.problems.count) of \(report.skipped))" : ""):")
            for problem in report.problems {
                print("  line \(problem.line) \(problem.element) \(problem.field): \"\(problem.value)\"; expected \(problem.expected)")
            }
        }
    }
}

/// Where export.xml comes from: a file, or an entry of the export's zip read as a stream.
struct ExportSource: CustomStringConvertible {
    enum Kind {
        case file(URL)
        case zipEntry(URL, String)
    }

    var kind: Kind
    /// The bytes of export.xml, for progress.
    var size: Int64

    var description: String {
        switch kind {
        case .file(let url): url.path
        case .zipEntry(let url, let entry): "\(url.path) (\(entry))"
        }
    }

    /// Finds export.xml at `path`: a zip (by its first bytes, whatever its name), a folder (the
    /// file itself or `apple_health_export/` inside), or the XML file.
    static func open(_ path: String) throws -> ExportSource {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandFailure("PATH: \(path) does not exist; expected an export zip, its folder or export.xml")
        }
        if isDirectory.boolValue {
            for folder in [url, url.appendingPathComponent("apple_health_export")] {
                for name in Import.exportNames.sorted() {
                    let candidate = folder.appendingPathComponent(name)
                    if FileManager.default.fileExists(atPath: candidate.path) { return try file(candidate) }
                }
            }
            throw CommandFailure("PATH: \(path) holds no export.xml (nor Export.xml, 导出.xml); expected the unpacked apple_health_export folder")
        }
        let handle = try FileHandle(forReadingFrom: url)
        let head = try handle.read(upToCount: 1 << 20) ?? Data()
        try handle.close()
        guard head.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]) else {
            try checkLooksLikeExport(head, path: path)
            return try file(url)
        }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw CommandFailure("PATH: \(path) is not a readable zip (\(error)); expected the export zip")
        }
        let entries = archive.filter { entry in
            entry.type == .file && !entry.path.hasPrefix("__MACOSX/")
                && Import.exportNames.contains(String(entry.path.split(separator: "/").last ?? ""))
        }
        guard let entry = entries.min(by: { $0.path.count < $1.path.count }) else {
            throw CommandFailure("PATH: \(path) has no export.xml entry; expected Apple Health's \"Export All Health Data\" zip")
        }
        return ExportSource(kind: .zipEntry(url, entry.path), size: Int64(entry.uncompressedSize))
    }

    /// A file given as export.xml must be XML with Apple Health's root element in its first MiB
    /// (after the DTD, which is about 10 KiB): anything else is named, before a byte is sent.
    static func checkLooksLikeExport(_ head: Data, path: String) throws {
        let expected = "expected Apple Health's export.zip, its apple_health_export folder or its export.xml"
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw CommandFailure("PATH: \(path) is empty, not an Apple Health export; \(expected)")
        }
        guard first == UInt8(ascii: "<") else {
            throw CommandFailure("PATH: \(path) is not an Apple Health export: it is not XML (it starts with \"\(String(decoding: bytes.prefix(16), as: UTF8.self).prefix(16))\"); \(expected)")
        }
        guard head.range(of: Data("<HealthData".utf8)) != nil else {
            throw CommandFailure("PATH: \(path) is XML but not an Apple Health export: it has no <HealthData> element; \(expected)")
        }
    }

    /// The folders of an export whose files export.xml refers to, sent after it.
    static let sideFolders = ["workout-routes", "electrocardiograms", "clinical-records"]

    /// A side file: its path inside the export's folder and how to read it in chunks.
    struct SideFile {
        var path: String
        /// Calls its argument with each chunk of the file, in order, at most
        /// `ImportLimits.standard.maximumSideFileBytes` + 1 bytes in all.
        var produce: Producer
    }

    /// Reads a file in chunks, passing each to its argument (which may throw to stop it).
    typealias Producer = ChunkReader.Producer

    /// The chunk size of every file read.
    static let chunkSize = 256 * 1024

    /// `produce` bounded to the side-file limit.
    static func bounded(_ produce: @escaping Producer) -> Producer {
        { consume in _ = try SideFileReader.read(limit: ImportLimits.standard.maximumSideFileBytes, produce: produce, send: consume) }
    }

    /// The chunks of a file on disk.
    static func fileChunks(_ url: URL) -> Producer {
        { consume in
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            while let data = try handle.read(upToCount: chunkSize), !data.isEmpty { try consume(data) }
        }
    }

    /// The chunks of a zip entry, inflated as they are consumed.
    static func entryChunks(_ url: URL, _ path: String) -> Producer {
        { consume in
            let guarded = try GuardedArchive(url: url)
            guard let entry = guarded.archive[path] else { throw CommandFailure("\(path) vanished from \(url.path)") }
            try guarded.extract(entry, bufferSize: chunkSize) { try consume($0) }
        }
    }

    /// Whether export.xml has `export_cda.xml` beside it (in its folder, or its zip folder).
    func hasCDARendering() -> Bool {
        switch kind {
        case .file(let url):
            return FileManager.default.fileExists(atPath: url.deletingLastPathComponent().appendingPathComponent("export_cda.xml").path)
        case .zipEntry(let url, let entryPath):
            let root = entryPath.split(separator: "/").dropLast().map { $0 + "/" }.joined()
            return (try? Archive(url: url, accessMode: .read))?[root + "export_cda.xml"] != nil
        }
    }

    /// The files of `sideFolders` beside export.xml (in its folder, or its zip folder), by path.
    func sideFiles() throws -> [SideFile] {
        switch kind {
        case .file(let url):
            let root = url.deletingLastPathComponent()
            var files: [SideFile] = []
            for folder in Self.sideFolders {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
                for name in names.sorted() where !name.hasPrefix(".") {
                    let file = root.appendingPathComponent(folder).appendingPathComponent(name)
                    files.append(SideFile(path: "\(folder)/\(name)", produce: Self.bounded(Self.fileChunks(file))))
                }
            }
            return files
        case .zipEntry(let url, let entryPath):
            let archive = try Archive(url: url, accessMode: .read)
            let root = entryPath.split(separator: "/").dropLast().map { $0 + "/" }.joined()
            var files: [SideFile] = []
            for entry in archive where entry.type == .file && entry.path.hasPrefix(root) {
                let relative = String(entry.path.dropFirst(root.count))
                guard Self.sideFolders.contains(where: { relative.hasPrefix($0 + "/") }) else { continue }
                files.append(SideFile(path: relative, produce: Self.bounded(Self.entryChunks(url, entry.path))))
            }
            return files.sorted { $0.path < $1.path }
        }
    }

    static func file(_ url: URL) throws -> ExportSource {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ExportSource(kind: .file(url), size: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }

    /// The bytes in chunks of 256 KiB, read as they are sent.
    func chunks() -> AsyncThrowingStream<Data, any Error> {
        switch kind {
        case .file(let url): ChunkReader.stream(Self.fileChunks(url))
        case .zipEntry(let url, let path): ChunkReader.stream(Self.entryChunks(url, path))
        }
    }
}

/// Progress on standard error, from the daemon's events (what it has processed, not what was
/// sent): a line rewritten in place on a terminal, a line at every tenth otherwise, nothing with
/// `--json` (the events are printed as JSON lines instead).
final class Progress {
    let json: Bool
    let terminal = isatty(STDERR_FILENO) == 1
    var lastTenth = 0
    var shown = false

    init(json: Bool) { self.json = json }

    func show(_ progress: ImportProgress) {
        guard !json else { return }
        if terminal {
            shown = true
            FileHandle.standardError.write(Data("\r\(Self.line(progress))\u{1B}[K".utf8))
        } else if let fraction = Self.fraction(progress), Int(fraction * 10) > lastTenth {
            lastTenth = Int(fraction * 10)
            FileHandle.standardError.write(Data("\(Self.line(progress))\n".utf8))
        }
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    /// The share done: records and side files processed of their totals; nil while the total is
    /// not known.
    static func fraction(_ progress: ImportProgress) -> Double? {
        let total = progress.recordsTotal + progress.sideFilesTotal
        guard progress.recordsTotal > 0, total > 0 else { return nil }
        return min(1, Double(progress.recordsProcessed + progress.sideFilesProcessed) / Double(total))
    }

    /// "12,345 of ~100,000 records, 0 of 3 side files (12%), 2,100 records/s, 0:42 left": the
    /// records and side files the daemon has saved, of their totals (estimated, `~`, while
    /// export.xml is read), the pace so far, and the time left at that pace.
    static func line(_ progress: ImportProgress) -> String {
        func count(_ value: UInt64) -> String { value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))) }
        var text = count(progress.recordsProcessed)
        if progress.recordsTotal > 0 { text += " of \(progress.exportRead ? "" : "~")\(count(progress.recordsTotal))" }
        text += " records"
        if progress.sideFilesTotal > 0 { text += ", \(count(progress.sideFilesProcessed)) of \(count(progress.sideFilesTotal)) side files" }
        let fraction = fraction(progress)
        if let fraction { text += " (\(Int(fraction * 100))%)" }
        let elapsed = progress.elapsedSeconds
        if elapsed > 0.2, progress.recordsProcessed > 0 {
            text += ", \(count(UInt64(Double(progress.recordsProcessed) / elapsed))) records/s"
            let units = Double(progress.recordsProcessed + progress.sideFilesProcessed)
            let total = Double(progress.recordsTotal + progress.sideFilesTotal)
            if fraction != nil, !progress.done, total > units {
                let left = Int(((total - units) / (units / elapsed)).rounded(.up))
                text += String(format: ", %d:%02d left", left / 60, left % 60)
            }
        }
        return text
    }
}
