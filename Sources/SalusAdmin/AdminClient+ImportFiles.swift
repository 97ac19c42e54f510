import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// One file of `importFiles`: what it was and what became of it.
public struct ImportedFile: Sendable, Hashable {
    /// The path as the client sent it.
    public var path: String
    /// The format its content showed (`fit`, `gpx`, `tcx`, `gadgetbridge`); empty when none.
    public var format: String
    /// Its workouts, in order.
    public var workouts: [ImportedWorkout]
    /// Samples of the file saved, and already there.
    public var saved: UInt64
    public var keptExisting: UInt64
    /// Where reading stopped before the file's end (nil: read to its end), and why.
    public var stoppedAt: UInt64?
    public var stopReason: String
    /// Why the file was not imported at all; empty when it was.
    public var notImported: String
    /// The app id its samples were saved under.
    public var source: String
}

/// One workout of an imported file.
public struct ImportedWorkout: Sendable, Hashable {
    public var uuid: String
    /// `HKWorkoutActivityType` raw value.
    public var activityType: UInt
    public var start: Date
    public var end: Date
    /// Total distance in metres; 0 when the file gives none.
    public var distance: Double
    public var routeLocations: UInt64
    /// Its activities' types in order (a triathlon's legs and transitions).
    public var legs: [UInt]
    /// The store held it already.
    public var keptExisting: Bool
    /// The workout of another source it duplicates ("<app id> <uuid>"), which stays the workout;
    /// empty when none. This one is then not saved: its figures are kept here as an alternate.
    public var alternateOf: String
    /// The file's statistics of the workout by type identifier, as value and unit ("512 kcal").
    public var statistics: [String: String] = [:]
    /// The app id of the source it was read from.
    public var source: String = ""
    /// With `alternateOf`: the UUID of this source's workout kept as an alternate beside the
    /// stored one (`salusctl workouts show` lists it); empty in a dry run.
    public var alternateUUID: String = ""
}

extension AdminClient {
    /// Imports activity and device files (salus.v1.Import/ImportFiles): each file's chunks in
    /// order carrying its path (``ImportChunk/sideFile(_:_:endOfFile:)``), one file after
    /// another; the daemon tells each file's format by its content. Gives progress after each
    /// file, then the report (with ``ImportReport/files``) last, as ``importAppleHealth(_:options:)``.
    public func importFiles(
        _ chunks: AsyncThrowingStream<ImportChunk, any Error>, options: ImportOptions = ImportOptions()
    ) -> AsyncThrowingStream<ImportEvent, any Error> {
        importStream(SalusMethods.Import.importFiles, chunks, options: options)
    }
}

extension ImportedFile {
    init(_ f: Salus_V1_ImportedFile) {
        self.init(
            path: f.path, format: f.format, workouts: f.workouts.map(ImportedWorkout.init), saved: f.saved, keptExisting: f.keptExisting,
            stoppedAt: f.stopped ? f.stoppedAt : nil, stopReason: f.stopReason, notImported: f.notImported, source: f.source)
    }

    var proto: Salus_V1_ImportedFile {
        .with {
            $0.path = path
            $0.format = format
            $0.workouts = workouts.map(\.proto)
            $0.saved = saved
            $0.keptExisting = keptExisting
            $0.stopped = stoppedAt != nil
            $0.stoppedAt = stoppedAt ?? 0
            $0.stopReason = stopReason
            $0.notImported = notImported
            $0.source = source
        }
    }
}

extension ImportedWorkout {
    init(_ w: Salus_V1_ImportedWorkout) {
        self.init(
            uuid: w.uuid, activityType: UInt(w.activityType), start: Date(timeIntervalSince1970: Double(w.startDate) / 1_000_000),
            end: Date(timeIntervalSince1970: Double(w.endDate) / 1_000_000), distance: w.distance, routeLocations: w.routeLocations,
            legs: w.legs.map(UInt.init), keptExisting: w.keptExisting, alternateOf: w.alternateOf,
            statistics: w.statistics, source: w.source, alternateUUID: w.alternateUuid)
    }

    var proto: Salus_V1_ImportedWorkout {
        .with {
            $0.uuid = uuid
            $0.activityType = UInt32(activityType)
            $0.startDate = Int64((start.timeIntervalSince1970 * 1_000_000).rounded())
            $0.endDate = Int64((end.timeIntervalSince1970 * 1_000_000).rounded())
            $0.distance = distance
            $0.routeLocations = routeLocations
            $0.legs = legs.map(UInt32.init)
            $0.keptExisting = keptExisting
            $0.alternateOf = alternateOf
            $0.statistics = statistics
            $0.source = source
            $0.alternateUuid = alternateUUID
        }
    }
}
