import Foundation
import SalusModel

/// What one activity or device file holds, as samples ready for the daemon's save path: its
/// workouts (each with its route and the samples recorded during it), its other samples, the
/// source they are saved under, and where the file stopped being readable.
///
/// Every sample carries a sync identifier naming it by what the file says (for FIT, the device
/// and the file's creation time), so importing the file again, or another copy of it, adds
/// nothing.
package struct FileImport: Sendable {
    /// The format the file's content showed.
    package var format: SourceFormat
    /// The source every sample of the file is saved under (`fit.garmin-fenix-2`).
    package var source: SourceRevision
    /// The workouts, in the file's order.
    package var workouts: [FileWorkout] = []
    /// Samples not of a workout (a monitoring file's steps and heart rate, sleep levels).
    package var samples: [Sample] = []
    /// What could not be read or was left out, each with its byte.
    package var problems: [FileProblem] = []
    /// Where reading stopped before the file's end, and why; nil when it was read to its end.
    /// What came before is in `workouts` and `samples`.
    package var stop: FileProblem?

    package init(format: SourceFormat, source: SourceRevision) {
        self.format = format
        self.source = source
    }
}

/// One workout of a file: the workout sample, its route's locations (saved as a route of the
/// workout once it has its UUID) and the samples recorded during it.
package struct FileWorkout: Sendable {
    package var workout: Sample
    /// The route in time order; empty when the file has no positions.
    package var route: [RouteLocation]
    /// The route's sync identifier (derived from the workout's).
    package var routeSyncIdentifier: String
    /// The samples made when the file was read (a GPX track's; a FIT file's heartbeat series).
    package var readySamples: [Sample]
    /// The samples made a batch at a time while they are saved, after `readySamples` (a FIT
    /// file's records: a long ride's 66,000 samples are never all in memory at once); nil when
    /// there are none.
    package var moreSamples: (any SampleBatches)?
    /// The total distance the file gives, in metres (for the report); nil when none.
    package var distance: Double?

    package init(
        workout: Sample, route: [RouteLocation], routeSyncIdentifier: String, samples: [Sample], moreSamples: (any SampleBatches)? = nil,
        distance: Double?
    ) {
        self.workout = workout
        self.route = route
        self.routeSyncIdentifier = routeSyncIdentifier
        self.readySamples = samples
        self.moreSamples = moreSamples
        self.distance = distance
    }

    /// Heart rate, cadence, power, speed and distance samples, and the heartbeat series: every
    /// sample of the workout at once (`readySamples`, then all of `moreSamples`).
    package var samples: [Sample] {
        var all = readySamples
        if var more = moreSamples {
            while case let batch = more.next(1000), !batch.isEmpty { all += batch }
        }
        return all
    }
}

/// Samples made a batch at a time, as they are saved. A copy starts where the original stood:
/// reading a copy leaves the original as it was.
package protocol SampleBatches: Sendable {
    /// The next samples, about `limit` of them (a few more when one message makes several);
    /// empty when there are no more.
    mutating func next(_ limit: Int) -> [Sample]
}

/// A problem with a file: the byte it is at (nil when it is not at one), what is at fault, its
/// value and what was expected or done.
package struct FileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package var offset: Int?
    package var field: String
    package var value: String
    package var expected: String
    /// How many of the file's records a note in `FileImport.problems` leaves out (rows of no
    /// known device, of a kind not mapped): what the import's report counts as skipped. 0 for a
    /// note that leaves no record out (no schema version, a table not read, a FIT problem after
    /// which the rest is read).
    package var recordsLeftOut: Int

    package init(offset: Int?, field: String, value: String, expected: String, recordsLeftOut: Int = 0) {
        self.offset = offset
        self.field = field
        self.value = value
        self.expected = expected
        self.recordsLeftOut = recordsLeftOut
    }

    package var description: String {
        (offset.map { "byte \($0): " } ?? "") + "\(field) \"\(value)\"; expected \(expected)"
    }
}

/// The readers of activity and device files, by format: **the one place a reader is plugged in**.
/// salusctl sends every file whose format `SourceFormat.detect` tells (but an Apple Health export)
/// to the daemon's `ImportFiles`, which calls `read` and saves what it returns (`FileImport`)
/// through the import's save path. A reader fills its case below; a format without one is
/// reported as not supported yet, naming the file.
package enum FileImporters {
    /// Reads the file whose bytes are `bytes`; `catalog` is the running type catalogue (the types
    /// the plugins registered). Throws when the file is not imported at all (its format is not
    /// supported yet, or it holds nothing to import); a file broken part way returns what came
    /// before the break, with `stop` set.
    package static func read(_ bytes: [UInt8], format: SourceFormat, catalog: TypeCatalog) throws(FileProblem) -> FileImport {
        switch format {
        case .fit:
            return try FITImport.read(bytes, catalog: catalog)
        case .gpx, .tcx:
            return try ActivityFile.fileImport(bytes, format: format, catalog: catalog)
        case .gadgetbridge:
            return try GadgetbridgeImport.fileImport(bytes, catalog: catalog)
        case .appleHealth, .zip:
            throw FileProblem(
                offset: nil, field: "format", value: format.displayName,
                expected: "one activity file; an Apple Health export goes through ImportAppleHealth, and a zip's entries are sent one by one")
        }
    }
}
