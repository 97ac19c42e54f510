import ArgumentParser
import Foundation
import SalusAdmin
import SalusExport

/// `salusctl export`: the person's samples out, in open formats, streamed (``AdminClient/export(_:standardOutput:progress:)``).
struct Export: OwnerCommand {
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
    var format: ExportFormat = .jsonl

    @Option(name: .long, help: ArgumentHelp("The file (jsonl; default standard output) or folder (csv).", valueName: "path"))
    var output: String?

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Only these types (identifiers or short names); default all.", valueName: "type"))
    var types: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only samples that end at or after this date.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only samples that start before this date (a bare day: before its end).", valueName: "date"))
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
        let request = ExportRequest(
            format: format, output: output, types: types,
            since: try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) },
            until: try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) },
            app: app)
        let summary: ExportSummary
        do {
            summary = try await admin.export(request) { written in
                FileHandle.standardError.write(Data("exported \(written) samples\n".utf8))
            }
        } catch let error as ExportError {
            throw CommandFailure("--output: \(error)")
        }
        FileHandle.standardError.write(Data(Self.summaryLine(summary, format: format, output: output).utf8))
    }

    /// The last line on standard error: how many samples of how many types, and what was left out.
    static func summaryLine(_ summary: ExportSummary, format: ExportFormat, output: String?) -> String {
        switch format {
        case .jsonl, .csv:
            return "exported \(summary.samples) samples of \(summary.types) types\n"
        case .appleHealth:
            let routes = summary.routes == 0 ? "" : " with \(summary.routes) routes"
            let note = summary.typesLeftOut > 0 ? "; \(summary.typesLeftOut) types have no place in Apple's format and were left out" : ""
            return "exported \(summary.samples) samples of \(summary.types) types\(routes) to \(URL(fileURLWithPath: output ?? "").path)\(note)\n"
        case .fhir:
            let note = summary.typesLeftOut > 0 ? "; \(summary.typesLeftOut) types have no Observation form and were left out" : ""
            return "exported \(summary.samples) samples of \(summary.types) types as FHIR Observations\(note)\n"
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
