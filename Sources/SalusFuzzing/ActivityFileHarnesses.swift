import Foundation
import SalusImport
import SalusModel

/// What a file reader's answer must hold whatever the bytes: each workout ends at or after it
/// starts, every location is on the Earth, every sample is named (a sync identifier, so a
/// second import adds nothing), and reading the same bytes again gives the same answer.
enum FileImportChecks {
    /// The answer summed up in what must not change between two reads of the same bytes.
    static func summary(_ read: FileImport) -> [String] {
        var lines: [String] = []
        for workout in read.workouts {
            lines.append("workout \(workout.workout.syncIdentifier ?? "") \(workout.route.count) \(workout.samples.count)")
            for sample in workout.samples { lines.append(sample.syncIdentifier ?? "") }
        }
        for sample in read.samples { lines.append(sample.syncIdentifier ?? "") }
        lines.append("stop \(read.stop?.description ?? "none") problems \(read.problems.count)")
        return lines
    }

    /// Stops the process when `read` breaks a rule above; `name` says which reader.
    static func check(_ read: FileImport, _ name: String) {
        for workout in read.workouts {
            guard workout.workout.endDate >= workout.workout.startDate else {
                fatalError("\(name): a workout ends at \(workout.workout.endDate), before its start \(workout.workout.startDate)")
            }
            guard workout.route.count <= ImportLimits.standard.maximumActivityPoints else {
                fatalError("\(name): a route of \(workout.route.count) locations, past the limit")
            }
            for location in workout.route where !(-90...90).contains(location.latitude) || !(-180...180).contains(location.longitude) {
                fatalError("\(name): a location at \(location.latitude), \(location.longitude)")
            }
            for sample in [workout.workout] + workout.samples {
                guard sample.syncIdentifier?.isEmpty == false else { fatalError("\(name): a \(sample.type) sample without a sync identifier") }
                guard sample.endDate >= sample.startDate else { fatalError("\(name): a \(sample.type) sample ending before it starts") }
            }
        }
        for sample in read.samples {
            guard sample.syncIdentifier?.isEmpty == false else { fatalError("\(name): a \(sample.type) sample without a sync identifier") }
            guard sample.endDate >= sample.startDate else { fatalError("\(name): a \(sample.type) sample ending before it starts") }
        }
    }
}

/// GPX and TCX files (Strava's, Garmin Connect's exports): libxml2's reader held to the import's
/// limits and the mapping to workouts, routes and samples. Besides `FileImportChecks`, a file
/// cut in half gives all of it or nothing: XML allows only comments and spaces after the root
/// element, so a half that reads must be the whole document, never a part of its tracks.
enum GPXTCXHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let catalog = FuzzEnvironment.catalog
        let data = Array(bytes)
        // The format the import would see; anything else read as GPX, which refuses it.
        let format: SourceFormat = SourceFormat.detect(data.prefix(SourceFormat.prefixLength)) == .tcx ? .tcx : .gpx
        func read(_ bytes: [UInt8]) -> FileImport? {
            do throws(FileProblem) {
                return try FileImporters.read(bytes, format: format, catalog: catalog)
            } catch {
                _ = error.description
                return nil
            }
        }
        guard let whole = read(data) else { return }
        FileImportChecks.check(whole, "gpx/tcx")
        let summary = FileImportChecks.summary(whole)
        guard read(data).map(FileImportChecks.summary) == summary else {
            fatalError("gpx/tcx: the same bytes read twice give two answers")
        }
        if let half = read(Array(data.prefix(data.count / 2))), FileImportChecks.summary(half) != summary {
            fatalError("gpx/tcx: the first \(data.count / 2) of \(data.count) bytes read as a document of their own, with other tracks")
        }
    }
}

/// Gadgetbridge's export database: SQLite deserialized read-only, its schema version checked,
/// every table the reader knows read. Besides never trapping, its answer holds to
/// `FileImportChecks`, and every sample is named for the device it came from.
enum GadgetbridgeHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let catalog = FuzzEnvironment.catalog
        let data = Array(bytes)
        func read() -> FileImport? {
            do throws(FileProblem) {
                return try FileImporters.read(data, format: .gadgetbridge, catalog: catalog)
            } catch {
                _ = error.description
                return nil
            }
        }
        guard let first = read() else { return }
        FileImportChecks.check(first, "gadgetbridge")
        for sample in first.samples where sample.syncIdentifier?.hasPrefix("gadgetbridge:v1|") != true {
            fatalError("gadgetbridge: a \(sample.type) sample named \(sample.syncIdentifier ?? "nothing")")
        }
        guard let second = read(), FileImportChecks.summary(second) == FileImportChecks.summary(first) else {
            fatalError("gadgetbridge: the same database read twice gives two answers")
        }
    }
}
