import ArgumentParser
import Foundation
import SalusKit
import SalusModel
import SalusAdmin
import SalusWire
import SwiftProtobuf

/// `salusctl export`: the person's samples out, in open formats, streamed.
struct Export: OwnerCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl
        case csv
        case appleHealth = "apple-health"
        case fhir
    }

    static let configuration = CommandConfiguration(
        abstract: "Export your samples as JSON lines, CSV (one file per type), an Apple Health zip or FHIR.",
        discussion: """
            Samples are read from the daemon page by page and written as they come: memory does not grow
            with the history. Times are ISO 8601 with the offset of your time zone (salusctl summary goals
            --time-zone); CSV values are in your preferred units (salusctl units), otherwise in the unit
            each sample was saved in.
              salusctl export --format jsonl > health.jsonl
              salusctl export --format csv --output health-csv --types stepCount --since 2026-01-01
              salusctl export --format apple-health --output export.zip      # salusctl import reads it back
              salusctl export --format fhir --output health.fhir.json        # a FHIR R4 Bundle of Observations
              salusctl export --app org.example.fit --output fit.jsonl       # what one app wrote, to take along
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "jsonl (one sample per line), csv (one file per type in --output), apple-health (a zip in --output) or fhir (a FHIR R4 Bundle).")
    var format: Format = .jsonl

    @Option(name: .long, help: ArgumentHelp("The file (jsonl; default standard output) or folder (csv).", valueName: "path"))
    var output: String?

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Only these types (identifiers or short names); default all.", valueName: "type"))
    var types: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only samples that end at or after this date.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only samples that start at or before this date.", valueName: "date"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("Only what this app wrote (its id).", valueName: "app-id"))
    var app: String?

    func validate() throws {
        if let app, app.isEmpty {
            throw ValidationError("--app: the app id is empty; expected an app id such as org.example.sleepdiary")
        }
        if format == .csv, output == nil {
            throw ValidationError("--output: missing; expected a folder for the CSV files (one per type)")
        }
        if format == .appleHealth, output == nil {
            throw ValidationError("--output: missing; expected the path of the zip to write (export.zip)")
        }
    }

    func run(admin: AdminClient) async throws {
        let listing = try await admin.types()
        let registry = Registry(listing)
        var selected: [RegisteredType]
        if types.isEmpty {
            selected = registry.types.filter { $0.kind != .characteristic && $0.kind != .activitySummary }
        } else {
            selected = try types.map { try registry.resolve($0) }
        }
        if let app {
            // Only the types the app wrote; an app neither registered nor a source is refused.
            let wrote = Set(try await admin.appData(app).types.map(\.type))
            selected = selected.filter { wrote.contains($0.identifier) }
        }
        let start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        let settings = try await admin.activitySettings()
        // Times in the person's zone, as 2024-01-01T04:31:36.000+05:30 (Z in UTC).
        let zone = TimeZone(identifier: settings.timeZone) ?? .current
        let dates = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, includingFractionalSeconds: true, timeZone: zone)
        let quantityTypes = selected.filter { $0.kind == .quantity }.map(\.identifier)
        let preferred = quantityTypes.isEmpty ? [] : try await admin.preferredUnits(of: quantityTypes)
        // Only the units the owner chose: without one, each sample keeps the unit it was saved in
        // (the daemon answers the canonical unit for the others, which is not a choice).
        let units = Dictionary(preferred.filter(\.isOwnerSet).map { ($0.type, $0.unit) }, uniquingKeysWith: { first, _ in first })

        let store = admin.store
        var conditions: [SamplePredicate] = []
        if start != nil || end != nil { conditions.append(.date(start: start, end: end)) }
        if let app { conditions.append(.sources([app])) }
        let filter: SamplePredicate? = conditions.count > 1 ? .and(conditions) : conditions.first
        switch format {
        case .appleHealth:
            return try await exportAppleHealth(admin: admin, store: store, listing: listing, types: selected, predicate: filter, settings: settings)
        case .fhir:
            return try await exportFHIR(store: store, listing: listing, types: selected, predicate: filter, timeZone: zone)
        case .jsonl, .csv:
            break
        }
        var written = 0
        let sink: FileHandle
        switch format {
        case .jsonl:
            if let output {
                sink = try PrivateOutput.file(output)
            } else {
                sink = FileHandle.standardOutput
            }
        case .csv, .appleHealth, .fhir:
            try PrivateOutput.folder(output!)
            sink = FileHandle.standardOutput
        }
        // Lines are formatted on every processor while the next samples arrive, and written in
        // order a chunk at a time, not one system call per sample.
        var lines = OrderedLineWriter(sink: sink) { try Self.jsonLine($0, dates: dates) }
        for type in selected {
            let query = SampleQueryDescriptor(
                type: SampleType(type.identifier),
                predicate: filter,
                sortDescriptors: [.startDate()])
            var csv: OrderedLineWriter?
            let unit = units[type.identifier].flatMap { try? SalusUnit(parsing: $0) }
            do {
                for try await sample in query.samples(for: store) {
                    switch format {
                    case .jsonl:
                        try await lines.add(sample)
                    case .csv, .appleHealth, .fhir:
                        if csv == nil {
                            let name = (Registry.shortNames(type.identifier).first ?? type.identifier) + ".csv"
                            let path = URL(fileURLWithPath: output!).appendingPathComponent(name).path
                            let file = try PrivateOutput.file(path)
                            file.write(Data("start,end,value,unit,source,source_version,device\n".utf8))
                            csv = OrderedLineWriter(sink: file) { Self.csvLine($0, unit: unit, dates: dates) }
                        }
                        try await csv?.add(sample)
                    }
                    written += 1
                    if written % 100_000 == 0 { FileHandle.standardError.write(Data("exported \(written) samples\n".utf8)) }
                }
            } catch let error as SalusError {
                throw CommandFailure(error.message)
            }
            if var csv {
                try await csv.finish()
                try csv.sink.close()
            }
        }
        if format == .jsonl {
            try await lines.finish()
            if output != nil { try sink.close() }
        }
        FileHandle.standardError.write(Data("exported \(written) samples of \(selected.count) types\n".utf8))
    }

    /// One sample as a JSON object: the wire form's fields, with the UUID as text and times in
    /// ISO 8601.
    ///
    /// The four fields come first as text; the rest is SwiftProtobuf's JSON of the wire form with
    /// those four cleared, spliced in as it is: no second parse, no re-serialisation.
    static func jsonLine(_ sample: Sample, dates: Date.ISO8601FormatStyle) throws -> String {
        var wire = sample.wire
        wire.uuid = Data()
        wire.startDate = 0
        wire.endDate = 0
        wire.creationDate = 0
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        // Map entries (metadata) in key order: one store always exports to the same bytes.
        options.useDeterministicOrdering = true
        let body = try wire.jsonString(options: options)
        var line = "{\"uuid\":\"\(sample.uuid.uuidString.lowercased())\",\"startDate\":\"\(dates.format(sample.startDate))\","
            + "\"endDate\":\"\(dates.format(sample.endDate))\",\"creationDate\":\"\(dates.format(sample.creationDate))\""
        if body.utf8.count > 2 {
            line += ","
            line += body.dropFirst()
        } else {
            line += "}"
        }
        return line
    }

    /// One CSV row; quantities in `unit` when given.
    static func csvLine(_ sample: Sample, unit: SalusUnit?, dates: Date.ISO8601FormatStyle) -> String {
        var value = ""
        var unitText = ""
        switch sample.value {
        case .quantity(let quantity):
            let shown = unit.flatMap { try? quantity.converted(to: $0) } ?? quantity
            value = String(shown.value)
            unitText = shown.unit.description
        case .category(let raw):
            value = String(raw)
        default:
            value = sample.kind.rawValue
        }
        let device = sample.device.map(csvDevice) ?? ""
        return [dates.format(sample.startDate), dates.format(sample.endDate), value, unitText,
                sample.sourceRevision.appID, sample.sourceRevision.version ?? "", device].map(csvField).joined(separator: ",")
    }

    /// The device column: the device's name ("Apple Watch"), else its manufacturer and model,
    /// each word once (a model of "Watch" adds nothing to "Apple Watch").
    static func csvDevice(_ device: Device) -> String {
        if let name = device.name, !name.isEmpty { return name }
        var words: [Substring] = []
        for part in [device.manufacturer, device.model].compactMap({ $0 }) {
            for word in part.split(separator: " ") where !words.contains(word) { words.append(word) }
        }
        return words.joined(separator: " ")
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
