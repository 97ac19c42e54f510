import Foundation
import SalusAdmin
import SalusImport
import SalusStore
import ZIPFoundation

/// What `salusctl import PATH` was given, told by content, never by name (`SourceFormat`): an
/// Apple Health export (its zip, its folder, export.xml), or activity and device files (FIT,
/// GPX, TCX, Gadgetbridge databases) alone, in a folder searched to any depth (a watch's
/// `GARMIN/Activity`), or in a zip.
enum ImportInput {
    case appleHealth
    /// The files to send, each with the path it is named by, and those left out with the reason.
    case files([ExportSource.SideFile], skipped: [(path: String, reason: String)])

    /// Reads the first bytes of every candidate file.
    static func classify(_ path: String) throws -> ImportInput {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return .appleHealth }
        if isDirectory.boolValue {
            // An unpacked Apple Health export is imported as it always was.
            for folder in [url, url.appendingPathComponent("apple_health_export")] {
                for name in Import.exportNames where FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
                    return .appleHealth
                }
            }
            return folderFiles(url)
        }
        let head = try prefix(of: ExportSource.fileChunks(url))
        switch SourceFormat.detect(head) {
        case .fit?, .gpx?, .tcx?, .gadgetbridge?:
            return .files([ExportSource.SideFile(path: url.lastPathComponent, produce: ExportSource.bounded(ExportSource.fileChunks(url)))], skipped: [])
        case .zip?:
            return try zipFiles(url)
        case .appleHealth?, nil:
            // Not an activity file: the export path names what is wrong with it.
            return .appleHealth
        }
    }

    /// The files of a folder, searched to any depth, in path order.
    static func folderFiles(_ url: URL) -> ImportInput {
        var files: [ExportSource.SideFile] = []
        var skipped: [(path: String, reason: String)] = []
        let root = url.standardizedFileURL.path
        let enumerator = FileManager.default.enumerator(
            at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        var found: [URL] = []
        while let next = enumerator?.nextObject() as? URL {
            if (try? next.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(next) }
        }
        for file in found.sorted(by: { $0.path < $1.path }) {
            var relative = file.standardizedFileURL.path
            if relative.hasPrefix(root + "/") { relative = String(relative.dropFirst(root.count + 1)) }
            let head = (try? prefix(of: ExportSource.fileChunks(file))) ?? []
            switch SourceFormat.detect(head) {
            case .fit?, .gpx?, .tcx?, .gadgetbridge?:
                files.append(ExportSource.SideFile(path: relative, produce: ExportSource.bounded(ExportSource.fileChunks(file))))
            case .zip?: skipped.append((relative, "a zip inside the folder: import it on its own"))
            case .appleHealth?: skipped.append((relative, "an Apple Health export: import it on its own"))
            case nil: skipped.append((relative, "not a FIT, GPX or TCX file, a Gadgetbridge database or an Apple Health export"))
            }
        }
        guard !files.isEmpty else { return .appleHealth }
        return .files(files, skipped: skipped)
    }

    /// The entries of a zip: Apple Health's export when it holds export.xml, else its activity
    /// files (`__MACOSX/` copies ignored), each inflated as it is sent.
    static func zipFiles(_ url: URL) throws -> ImportInput {
        guard let archive = try? Archive(url: url, accessMode: .read) else { return .appleHealth }
        let entries = archive.filter { $0.type == .file && !$0.path.hasPrefix("__MACOSX/") }
        if entries.contains(where: { Import.exportNames.contains(String($0.path.split(separator: "/").last ?? "")) }) { return .appleHealth }
        var files: [ExportSource.SideFile] = []
        var skipped: [(path: String, reason: String)] = []
        for entry in entries.sorted(by: { $0.path < $1.path }) {
            let produce = ExportSource.entryChunks(url, entry.path)
            let head = (try? prefix(of: produce)) ?? []
            switch SourceFormat.detect(head) {
            case .fit?, .gpx?, .tcx?, .gadgetbridge?:
                files.append(ExportSource.SideFile(path: entry.path, produce: ExportSource.bounded(produce)))
            default:
                skipped.append((entry.path, "not a FIT, GPX or TCX file nor a Gadgetbridge database"))
            }
        }
        guard !files.isEmpty else { return .appleHealth }
        return .files(files, skipped: skipped)
    }

    /// The first `SourceFormat.prefixLength` bytes a producer gives (it is stopped there).
    static func prefix(of produce: ExportSource.Producer) throws -> [UInt8] {
        struct Enough: Error {}
        var head: [UInt8] = []
        do {
            try produce { data in
                head.append(contentsOf: data.prefix(SourceFormat.prefixLength - head.count))
                if head.count >= SourceFormat.prefixLength { throw Enough() }
            }
        } catch is Enough {}
        return head
    }
}

extension Import {
    /// Sends activity and device files to the daemon's `ImportFiles` and prints its report: every
    /// file with its workouts, where a broken one stopped, and what was left out.
    func runFiles(admin: AdminClient, _ files: [ExportSource.SideFile], skipped: [(path: String, reason: String)]) async throws {
        let progress = Progress(json: json)
        let options = ImportOptions(dryRun: dryRun, sideFiles: UInt64(files.count), keepDuplicates: keepDuplicates)
        var answer: ImportReport?
        for try await event in admin.importFiles(FileFeed(files).stream(), options: options) {
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
        for (path, _) in skipped { report.notImported[path, default: 0] += 1 }
        if json {
            print(try AdminJSON.text(importEvent: .report(report)))
            return
        }
        let registry = (try? await admin.types()).map(Registry.init)
        Self.printFilesReport(report, skipped: skipped, registry: registry)
        if !dryRun { try await DataRange.printWhereToLook(admin: admin) }
    }

    static func printFilesReport(_ report: ImportReport, skipped: [(path: String, reason: String)], registry: Registry?) {
        let workouts = report.files.reduce(0) { $0 + $1.workouts.count }
        print("\(report.dryRun ? "Checked" : "Imported") \(report.files.count) file\(report.files.count == 1 ? "" : "s"), \(workouts) workout\(workouts == 1 ? "" : "s"): "
            + "\(report.saved) samples \(report.dryRun ? "to save" : "saved"), \(report.keptExisting) already there, \(report.skipped) skipped")
        let utc = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day().dateTimeSeparator(.space).time(includingFractionalSeconds: false)
        func name(_ raw: UInt) -> String { registry.map { WorkoutText.name(raw, $0) } ?? "activity type \(raw)" }
        for file in report.files {
            let format = SourceFormat(rawValue: file.format)?.displayName ?? "unknown format"
            print("\(file.path) (\(format)\(file.source.isEmpty ? "" : ", \(file.source)")): \(file.saved) saved, \(file.keptExisting) already there")
            if !file.notImported.isEmpty { print("  not imported: \(file.notImported)") }
            if let offset = file.stoppedAt { print("  stopped at byte \(offset): \(file.stopReason); what came before it is imported") }
            for workout in file.workouts {
                let seconds = Int(workout.end.timeIntervalSince(workout.start).rounded())
                var line = "  \(name(workout.activityType)) \(workout.start.formatted(utc)) UTC, "
                    + String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                if workout.distance > 0 { line += String(format: ", %.2f km", workout.distance / 1000) }
                if workout.routeLocations > 0 { line += ", route of \(workout.routeLocations) locations" }
                if workout.legs.count > 1 { line += "; legs: " + workout.legs.map(name).joined(separator: ", ") }
                if workout.keptExisting { line += " (already there)" }
                if !workout.alternateOf.isEmpty {
                    // "<app id> <uuid>" of the workout that stays.
                    let kept = workout.alternateOf.split(separator: " ", maxSplits: 1).map(String.init)
                    line += "; the same workout from \(kept.first ?? workout.alternateOf) is stored already, kept as it is; "
                        + "this file's is kept as its alternate (salusctl workouts show), not saved as a second workout"
                }
                print(line + " — \(workout.uuid.lowercased())")
                if !workout.alternateOf.isEmpty, !workout.statistics.isEmpty {
                    print("    its figures: " + workout.statistics.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
                }
            }
        }
        if !skipped.isEmpty {
            print("not imported:")
            for (path, reason) in skipped { print("  \(path): \(reason)") }
        }
        if !report.problems.isEmpty {
            print("problems\(report.skipped > UInt64(report.problems.count) ? " (the first \(report.problems.count) of \(report.skipped))" : ""):")
            for problem in report.problems {
                // Offset 0: a problem of a sample or the whole file, not of one byte.
                let place = problem.offset > 0 ? " byte \(problem.offset)" : ""
                print("  \(problem.file)\(place) \(problem.field): \(problem.value); expected \(problem.expected)")
            }
        }
    }

    /// Each file's chunks in order, carrying its path, its last one marked; read only as they
    /// are sent.
    final class FileFeed: @unchecked Sendable {
        var files: [ExportSource.SideFile]
        var current: (path: String, chunks: AsyncThrowingStream<Data, any Error>.AsyncIterator, held: Data?)?

        init(_ files: [ExportSource.SideFile]) { self.files = files }

        func stream() -> AsyncThrowingStream<ImportChunk, any Error> {
            AsyncThrowingStream(unfolding: { try await self.next() })
        }

        func next() async throws -> ImportChunk? {
            while true {
                if current == nil {
                    guard !files.isEmpty else { return nil }
                    let file = files.removeFirst()
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
}
