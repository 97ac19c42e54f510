import Foundation
import SalusAdmin
import SalusImport
import SalusKit
import SalusModel
import ZIPFoundation

extension SampleExport {
    /// `--format apple-health`: a zip in Apple's layout, `apple_health_export/export.xml`, that
    /// `salusctl import` reads back to the same samples: clinical records' FHIR resources in
    /// `clinical-records/`, electrocardiograms as CSV files in `electrocardiograms/`, the exported
    /// workouts' routes as GPX files in `workout-routes/`, the characteristics in `Me`, and with
    /// `activitySummaries` the activity goals as `ActivitySummary` elements.
    ///
    /// export.xml is written element by element to a private folder beside the zip while the
    /// samples are read page by page, then deflated into the zip as a stream and removed: memory
    /// does not grow with the history, and nothing is left beside the zip.
    func appleHealth(zip path: String, admin: AdminClient, settings: ActivitySettings, activitySummaries: Bool) async throws -> ExportSummary {
        let zipURL = URL(fileURLWithPath: path)
        // export.xml and the side files are staged in a private folder beside the zip, named by
        // mkdtemp: a name nobody can guess and claim first, readable by no one else.
        let work = URL(fileURLWithPath: try ExportFiles.temporaryFolder(beside: zipURL.path), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let staging = work.appendingPathComponent("export.xml")
        // Clinical records' resources and electrocardiograms, staged as files.
        let sideFolder = work.appendingPathComponent("files", isDirectory: true)
        var sideFiles: [String] = []
        let writer: AppleHealthWriter
        do {
            writer = try AppleHealthWriter(path: staging.path, names: ExportNames(listing), timeZone: timeZone)
        } catch {
            throw ExportError("\(error)")
        }
        let characteristics = try await admin.characteristics().filter { characteristic in
            if case .date(let day)? = characteristic.value { return day.isValid }
            return true
        }
        try writer.begin(exportDate: Date(), locale: Locale.current.identifier, characteristics: characteristics)

        // The routes of the exported workouts: named in each Workout, written as GPX files.
        let routeFiles = try await routeFiles(writer: writer)
        // Of the workout kind, only HealthKit's workouts: Salus's own types of that kind (a
        // workout's alternates from other sources) would read as second workouts in the export.
        let workoutType = SampleType.workout.identifier.rawValue
        let ordered = types.compactMap { type in
            type.kind == .workout && type.identifier != workoutType
                ? nil : type.kind.flatMap(AppleHealthWriter.rank(of:)).map { (rank: $0, type: type) }
        }.sorted { ($0.rank, $0.type.identifier) < ($1.rank, $1.type.identifier) }
        var written = 0
        for (_, type) in ordered {
            for try await sample in samples(of: type.identifier) {
                switch sample.value {
                case .clinicalRecord(let record):
                    // The element in export.xml, the FHIR resource in clinical-records/.
                    let path = AppleHealthWriter.clinicalRecordPath(of: sample)
                    try writer.clinicalRecord(sample, path: path)
                    try Self.stage(record.fhirData, at: path, in: sideFolder)
                    sideFiles.append(path)
                case .electrocardiogram:
                    // No element: a CSV of its own in electrocardiograms/.
                    let voltages = try await ElectrocardiogramQueryDescriptor(sample).result(for: store)
                    let path = writer.electrocardiogramPath(of: sample)
                    try Self.stage(writer.electrocardiogramCSV(sample, voltages: voltages), at: path, in: sideFolder)
                    sideFiles.append(path)
                default:
                    guard try writer.write(sample) else { continue }
                }
                counted(&written)
            }
        }
        if activitySummaries {
            // An entry without a day (none the daemon keeps) is left out.
            try writer.activitySummaries(settings.goals.filter { $0.from != CalendarDate(year: 0, month: 0, day: 0) })
        }
        try writer.finish()

        try? FileManager.default.removeItem(at: zipURL)
        do {
            let archive = try ExportFiles.zip(zipURL.path)
            try archive.addEntry(with: "apple_health_export/export.xml", fileURL: staging, compressionMethod: .deflate)
            for path in sideFiles {
                try archive.addEntry(
                    with: "apple_health_export/" + path, fileURL: sideFolder.appendingPathComponent(path), compressionMethod: .deflate)
            }
            // Each route's GPX, one route in memory at a time.
            for file in routeFiles {
                let gpx = try await gpx(of: file.route)
                try archive.addEntry(
                    with: "apple_health_export/" + file.path, type: .file, uncompressedSize: Int64(gpx.count),
                    compressionMethod: .deflate
                ) { position, size in
                    gpx.subdata(in: Int(position)..<Int(position) + size)
                }
            }
        } catch let error as SalusError {
            throw error
        } catch {
            throw ExportError("\(zipURL.path) cannot be written (\(error))")
        }
        return ExportSummary(samples: written, types: ordered.count, typesLeftOut: types.count - ordered.count, routes: routeFiles.count)
    }

    /// The routes of the exported workouts (when workouts are exported), each with the path of
    /// its GPX file; the writer is told which workout names which.
    func routeFiles(writer: AppleHealthWriter) async throws -> [(route: Sample, path: String)] {
        let routeType = SampleType.workoutRoute.identifier.rawValue
        guard types.contains(where: { $0.identifier == SampleType.workout.identifier.rawValue }),
            listing.types.contains(where: { $0.identifier == routeType })
        else { return [] }
        let routes = try await SampleQueryDescriptor(type: .workoutRoute, predicate: predicate, sortDescriptors: [.startDate()])
            .result(for: store)
        var files: [(route: Sample, path: String)] = []
        for route in routes {
            guard case .workoutRoute(let value) = route.value else { continue }
            let path = writer.routePath(of: route)
            writer.routes[value.workoutUUID, default: []].append((route, path))
            files.append((route, path))
        }
        return files
    }

    /// Writes `data` to `path` inside `folder`, creating the folders it needs.
    static func stage(_ data: Data, at path: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// The GPX 1.1 of `route`, its locations read from the daemon.
    func gpx(of route: Sample) async throws -> Data {
        let locations = try await store.routeLocations(of: route.uuid).collect()
        return GPX.write(locations, name: "Route " + route.startDate.formatted(.iso8601), creator: "Salus")
    }
}

extension ExportNames {
    /// The case and workout activity names of the daemon's catalogue, for the export's value names.
    init(_ listing: TypeListing) {
        var cases: [String: [Int64: String]] = [:]
        var cumulative: Set<String> = []
        for type in listing.types {
            if !type.cases.isEmpty {
                cases[type.identifier] = Dictionary(type.cases.map { ($0.rawValue, $0.name) }) { first, _ in first }
            }
            if type.aggregation == .cumulative { cumulative.insert(type.identifier) }
        }
        self.init(
            cases: cases, cumulative: cumulative,
            activityTypes: Dictionary(listing.workoutActivityTypes.map { ($0.rawValue, $0.name) }) { first, _ in first })
    }
}
