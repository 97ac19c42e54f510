import Foundation
import SalusAdmin
import SalusKit
import SalusModel

/// The open formats the person's samples are exported in.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One JSON object per line: the wire form's fields, the UUID as text, times in ISO 8601.
    case jsonl
    /// One CSV file per type in a folder: start, end, value, unit, source, source version,
    /// device.
    case csv
    /// A zip in Apple's layout, `apple_health_export/export.xml` with its side files, that
    /// `salusctl import` reads back.
    case appleHealth = "apple-health"
    /// One FHIR R4 Bundle (type collection) of Observations.
    case fhir
}

/// What to export, and where to.
public struct ExportRequest: Sendable, Hashable {
    public var format: ExportFormat
    /// The file (``ExportFormat/jsonl``, ``ExportFormat/fhir``: nil writes to the standard
    /// output handle given to ``AdminClient/export(_:standardOutput:progress:)``), the folder
    /// (``ExportFormat/csv``, made if missing) or the zip (``ExportFormat/appleHealth``). Every
    /// file and folder is created private to the owner (0600, folders 0700), replacing a file or
    /// link already there and never writing through it.
    public var output: String?
    /// The types, by identifier or short name (`stepCount`); empty exports every registered type
    /// but characteristics and activity summaries.
    public var types: [String]
    /// Only samples that end at or after this moment.
    public var since: Date?
    /// Only samples that start before this moment (the date predicate's end is exclusive).
    public var until: Date?
    /// Only what this app wrote (its id), of the types it wrote.
    public var app: String?

    public init(
        format: ExportFormat, output: String? = nil, types: [String] = [], since: Date? = nil, until: Date? = nil,
        app: String? = nil
    ) {
        self.format = format
        self.output = output
        self.types = types
        self.since = since
        self.until = until
        self.app = app
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Hashable {
    /// The samples written (for ``ExportFormat/appleHealth``, with the clinical records' and
    /// electrocardiograms' side files; routes are counted in ``routes``).
    public var samples: Int
    /// The types the format holds, of those selected.
    public var types: Int
    /// The types selected that the format has no place for (Apple Health) or no Observation
    /// form for (FHIR), left out; 0 for JSON lines and CSV, which hold every type.
    public var typesLeftOut: Int
    /// The workout routes written as GPX files (Apple Health only).
    public var routes: Int

    public init(samples: Int, types: Int, typesLeftOut: Int, routes: Int) {
        self.samples = samples
        self.types = types
        self.typesLeftOut = typesLeftOut
        self.routes = routes
    }
}

/// A failure to write an export's output: the file, folder or zip could not be created or
/// written, or the format needs an output that is missing. The description names the path and
/// why (salusctl shows it after `--output: `); nothing of it stays behind but what was written
/// before the failure.
public struct ExportError: Error, CustomStringConvertible, Hashable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension AdminClient {
    /// Exports the person's samples as `request` says, streamed: samples are read from the
    /// daemon page by page and written as they come, so memory does not grow with the history.
    ///
    /// - Times are ISO 8601 with the offset of the person's time zone
    ///   (``ActivitySettings/timeZone``), as `2024-01-01T04:31:36.000+05:30` (`Z` in UTC);
    ///   Apple Health's are `yyyy-MM-dd HH:mm:ss ±HHMM` in that zone.
    /// - CSV quantities are in the owner's preferred unit of the type where the owner chose one
    ///   (``preferredUnits(of:)``), otherwise in the unit each sample was saved in; JSON lines,
    ///   Apple Health and FHIR keep each sample's unit.
    /// - With ``ExportRequest/app``, only the types the app wrote, and of them only its samples;
    ///   an app neither registered nor a source is refused (``SalusError/Code/notFound``).
    ///
    /// `progress` is called with the count written every 100,000 samples. Throws ``SalusError``
    /// for the daemon's refusals (an unknown type name among them) and ``ExportError`` when the
    /// output cannot be written.
    public func export(
        _ request: ExportRequest, standardOutput: FileHandle = .standardOutput,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> ExportSummary {
        if let app = request.app, app.isEmpty {
            throw SalusError(
                code: .invalidArgument, message: "app: the app id is empty; expected an app id such as org.example.sleepdiary",
                field: "app", value: "", expected: "an app id such as org.example.sleepdiary")
        }
        if request.output == nil {
            switch request.format {
            case .csv: throw ExportError("missing; expected a folder for the CSV files (one per type)")
            case .appleHealth: throw ExportError("missing; expected the path of the zip to write (export.zip)")
            case .jsonl, .fhir: break
            }
        }
        let listing = try await types()
        let registered = listing.types.filter { $0.kind != .characteristic }
        var selected: [RegisteredType]
        if request.types.isEmpty {
            selected = registered.filter { $0.kind != .activitySummary }
        } else {
            selected = try request.types.map { name in
                let identifier = try TypeNames.resolve(name, among: registered.map(\.identifier))
                return registered.first { $0.identifier == identifier }!
            }
        }
        if let app = request.app {
            // Only the types the app wrote; an app neither registered nor a source is refused.
            let wrote = Set(try await appData(app).types.map(\.type))
            selected = selected.filter { wrote.contains($0.identifier) }
        }
        let settings = try await activitySettings()
        let zone = TimeZone(identifier: settings.timeZone) ?? .current
        var conditions: [SamplePredicate] = []
        if request.since != nil || request.until != nil { conditions.append(.date(start: request.since, end: request.until)) }
        if let app = request.app { conditions.append(.sources([app])) }
        let predicate: SamplePredicate? = conditions.count > 1 ? .and(conditions) : conditions.first
        let export = SampleExport(
            store: store, listing: listing, types: selected, predicate: predicate, timeZone: zone, progress: progress)

        switch request.format {
        case .appleHealth:
            return try await export.appleHealth(
                zip: request.output!, admin: self, settings: settings, activitySummaries: request.types.isEmpty)
        case .fhir:
            return try await export.fhir(output: request.output, standardOutput: standardOutput)
        case .jsonl:
            return try await export.jsonLines(output: request.output, standardOutput: standardOutput)
        case .csv:
            let quantityTypes = selected.filter { $0.kind == .quantity }.map(\.identifier)
            let preferred = quantityTypes.isEmpty ? [] : try await preferredUnits(of: quantityTypes)
            // Only the units the owner chose: without one, each sample keeps the unit it was saved
            // in (the daemon answers the canonical unit for the others, which is not a choice).
            let units = Dictionary(preferred.filter(\.isOwnerSet).map { ($0.type, $0.unit) }, uniquingKeysWith: { first, _ in first })
            return try await export.csv(folder: request.output!, units: units)
        }
    }
}

/// One export's selection, read from the daemon and written in one format.
struct SampleExport {
    let store: HealthStore
    let listing: TypeListing
    let types: [RegisteredType]
    let predicate: SamplePredicate?
    let timeZone: TimeZone
    let progress: @Sendable (Int) -> Void

    /// Dates as 2024-01-01T04:31:36.000+05:30 in the person's zone (Z in UTC).
    var dates: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(timeZoneSeparator: .colon, includingFractionalSeconds: true, timeZone: timeZone)
    }

    /// The samples of `type` in the selection, oldest start first.
    func samples(of type: String) -> SampleQuerySamples {
        SampleQueryDescriptor(type: SampleType(type), predicate: predicate, sortDescriptors: [.startDate()]).samples(for: store)
    }

    /// Counts one more sample written, telling `progress` every 100,000.
    func counted(_ written: inout Int) {
        written += 1
        if written % 100_000 == 0 { progress(written) }
    }

    /// `--format jsonl`: one line per sample, every type in one file (or `standardOutput`).
    func jsonLines(output: String?, standardOutput: FileHandle) async throws -> ExportSummary {
        let sink = try output.map(ExportFiles.file) ?? standardOutput
        let dates = self.dates
        // Lines are formatted on every processor while the next samples arrive, and written in
        // order a chunk at a time, not one system call per sample.
        var lines = OrderedLineWriter(sink: sink) { try SampleLines.json($0, dates: dates) }
        var written = 0
        for type in types {
            for try await sample in samples(of: type.identifier) {
                try await lines.add(sample)
                counted(&written)
            }
        }
        try await lines.finish()
        if output != nil { try sink.close() }
        return ExportSummary(samples: written, types: types.count, typesLeftOut: 0, routes: 0)
    }

    /// `--format csv`: one file per type that has samples, `<short name>.csv` in `folder`;
    /// quantities in `units` (by type identifier) where given.
    func csv(folder: String, units: [String: String]) async throws -> ExportSummary {
        try ExportFiles.folder(folder)
        let dates = self.dates
        var written = 0
        for type in types {
            var csv: OrderedLineWriter?
            let unit = units[type.identifier].flatMap { try? SalusUnit(parsing: $0) }
            for try await sample in samples(of: type.identifier) {
                if csv == nil {
                    let name = (TypeNames.shortNames(type.identifier).first ?? type.identifier) + ".csv"
                    let file = try ExportFiles.file(URL(fileURLWithPath: folder).appendingPathComponent(name).path)
                    file.write(Data((SampleLines.csvHeader + "\n").utf8))
                    csv = OrderedLineWriter(sink: file) { SampleLines.csv($0, unit: unit, dates: dates) }
                }
                try await csv?.add(sample)
                counted(&written)
            }
            if var csv {
                try await csv.finish()
                try csv.sink.close()
            }
        }
        return ExportSummary(samples: written, types: types.count, typesLeftOut: 0, routes: 0)
    }
}
