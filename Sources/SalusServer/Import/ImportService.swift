import Foundation
import SalusImport
import SalusModel
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore

/// salus.v1.Import: the owner's Apple Health export, streamed in and saved as it is read
/// (admin socket only).
///
/// **How an import goes.**
/// - The chunks feed `ExportXMLReader`, which hands over one top-level element at a time; the
///   daemon never holds the document, only the elements read since the last save.
/// - `Record` and `Correlation` elements become samples by the running catalogue
///   (`RecordMapper`); every sample is checked by the one sample check (read-only types are
///   allowed: they are the person's own history), and one that fails is skipped and reported
///   with its line, never saved half.
/// - Samples are saved in batches of up to 1,000, each source of the export under its own app id
///   (`applehealth.<source>`), so source priorities and per-source statistics work as for apps.
/// - Each sample carries a sync identifier naming it by its content (unless it has its own), so
///   importing the same export again, or a record the export repeats (a correlation's members
///   are also listed at top level), saves it once: the repeat is reported as kept.
/// - A heart-rate-variability record's list of instantaneous beats becomes a heartbeat series
///   beside it.
/// - `<Me>` sets characteristics only when asked (`characteristics`).
/// - `ActivitySummary` elements give the goal history: one entry for each day the goals changed
///   (the day's figures themselves are computed from the samples).
/// - `Workout` elements become workouts with their events, activities (one spanning the workout
///   when none is listed) and totals; their routes are counted, not imported yet.
/// - Element kinds not imported yet (clinical records, audiograms,
///   prescriptions) are counted in the report, never silently dropped.
package struct ImportService: Sendable {
    let store: SampleStore
    let settings: PersonSettings

    /// Creates the service.
    package init(store: SampleStore, settings: PersonSettings) {
        self.store = store
        self.settings = settings
    }

    /// Adds the method to the admin socket's router.
    package func register(into router: inout RPCRouter) {
        router.registerClientStreaming(SalusMethods.Import.importAppleHealth, onEventLoop: false) {
            (chunks: RPCRequestStream<Salus_V1_ImportChunk>, _) -> Salus_V1_ImportReport in
            try await self.importAppleHealth(chunks)
        }
    }

    /// The most problems a report lists (all are counted).
    static let listedProblems = 100
    /// Samples per save.
    static let batchSize = 1000

    func importAppleHealth(_ chunks: RPCRequestStream<Salus_V1_ImportChunk>) async throws -> Salus_V1_ImportReport {
        let run = ImportRun(store: store, settings: settings)
        var first = true
        for try await chunk in chunks {
            if first {
                run.options = chunk.options
                run.report.dryRun = chunk.options.dryRun
                first = false
            }
            guard !chunk.data.isEmpty else { continue }
            do {
                try run.reader.feed(chunk.data)
            } catch let error as ExportReadError {
                throw RPCError.invalidArgument(field: "data", value: "export.xml line \(error.line)", expected: "well-formed XML: \(error.message)")
            }
            try await run.flush(force: false)
        }
        do {
            try run.reader.finish()
        } catch let error as ExportReadError {
            throw RPCError.invalidArgument(field: "data", value: "export.xml line \(error.line)", expected: "a complete export: \(error.message)")
        }
        guard run.reader.rootName == "HealthData" else {
            throw RPCError.invalidArgument(
                field: "data", value: "a root element <\(run.reader.rootName ?? "")>", expected: "an Apple Health export (root element HealthData)")
        }
        try await run.flush(force: true)
        run.report.bytesRead = UInt64(run.reader.bytesRead)
        return run.report
    }
}

/// One import in progress: the reader, the samples read and not yet saved, the report.
final class ImportRun {
    let store: SampleStore
    let settings: PersonSettings
    let mapper: RecordMapper
    var options = Salus_V1_ImportOptions()
    var report = Salus_V1_ImportReport()
    var pending: [SourceRevision: [Sample]] = [:]
    var pendingCount = 0
    var characteristics: [Characteristic] = []
    var summaryGoals: [ActivityGoals] = []
    var appIDs: [String: String] = [:]
    private(set) var reader: ExportXMLReader!

    init(store: SampleStore, settings: PersonSettings) {
        self.store = store
        self.settings = settings
        mapper = RecordMapper(catalog: store.catalog)
        reader = ExportXMLReader { [unowned self] element in self.take(element) }
    }

    /// Counts a top-level element and maps what this version imports.
    func take(_ element: ExportElement) {
        report.elements[element.name, default: 0] += 1
        switch element.name {
        case "Record":
            do {
                var sample = try mapper.record(element).sample
                sample.metadata = RecordMapper.withImportIdentifier(sample.metadata, of: element)
                add(sample, element: element)
                // Heart rate variability: the beats behind it, as a heartbeat series.
                if store.catalog.rules(for: "HKDataTypeIdentifierHeartbeatSeries") != nil,
                   let series = try mapper.heartbeatSeries(element, record: sample) {
                    add(series, element: element)
                }
            } catch {
                problem(error, element: element.name)
            }
        case "Correlation":
            do {
                add(try mapper.correlation(element), element: element)
            } catch {
                problem(error, element: element.name)
            }
        case "Workout":
            do {
                add(try mapper.workout(element), element: element)
                let routes = element.children(named: "WorkoutRoute").count
                if routes > 0 { report.notImported["WorkoutRoute", default: 0] += UInt64(routes) }
            } catch {
                problem(error, element: element.name)
            }
        case "Audiogram":
            do {
                add(try mapper.audiogram(element), element: element)
            } catch {
                problem(error, element: element.name)
            }
        case "VisionPrescription":
            do {
                add(try mapper.visionPrescription(element), element: element)
                // The export names its attachments but does not carry their files.
                let attachments = element.children(named: "Attachment").count
                if attachments > 0 { report.notImported["VisionPrescription.Attachment", default: 0] += UInt64(attachments) }
            } catch {
                problem(error, element: element.name)
            }
        case "Me":
            guard options.characteristics else { return }
            let (values, problems) = mapper.characteristics(element)
            characteristics += values
            for item in problems { problem(item, element: "Me") }
        case "ActivitySummary":
            // The figures are computed from the samples; what the export adds is the goals.
            if let goals = RecordMapper.activityGoals(element, previous: nil) { summaryGoals.append(goals) }
        case "ExportDate":
            break
        default:
            report.notImported[element.name, default: 0] += 1
        }
    }

    func add(_ sample: Sample, element: ExportElement) {
        let errors = store.catalog.validationErrors(of: sample, at: element.name, allowReadOnly: true)
        if let error = errors.first {
            problem(ImportRefusal(line: element.line, field: error.field, value: error.value, expected: error.expected), element: element.name)
            return
        }
        // Source names in real exports carry no-break spaces and trailing spaces: one source.
        let name = sample.sourceRevision.name.replacingOccurrences(of: "\u{00A0}", with: " ")
            .trimmingCharacters(in: .whitespaces)
        let appID: String
        if let known = appIDs[name] {
            appID = known
        } else {
            appID = RecordMapper.appID(forSource: name)
            appIDs[name] = appID
            report.sources[name] = appID
        }
        let source = SourceRevision(appID: appID, name: name.isEmpty ? appID : name, version: sample.sourceRevision.version)
        pending[source, default: []].append(sample)
        pendingCount += 1
    }

    func problem(_ refusal: ImportRefusal, element: String) {
        report.skipped += 1
        guard report.problems.count < ImportService.listedProblems else { return }
        report.problems.append(Salus_V1_ImportProblem.with {
            $0.line = UInt32(clamping: refusal.line)
            $0.element = element
            $0.field = refusal.field
            $0.value = refusal.value
            $0.expected = refusal.expected
        })
    }

    /// Saves what was read, once a batch is full (or everything with `force`), each source in
    /// its own transaction.
    func flush(force: Bool) async throws {
        if force, !characteristics.isEmpty {
            let today = CalendarDate(containing: Date(), in: settings.timeZone)
            let valid = characteristics.filter { store.catalog.checkCharacteristic($0, field: "Me", today: today) == nil }
            if !options.dryRun { try settings.setCharacteristics(valid, clear: []) }
            report.characteristicsSet = valid.map(\.type.rawValue)
            characteristics = []
        }
        if force, !summaryGoals.isEmpty {
            // One entry for each day the goals changed, oldest first; later entries of the person
            // are left alone.
            var previous: ActivityGoals?
            for goals in summaryGoals.sorted(by: { $0.from < $1.from }) {
                if let previous, previous.fields.map(\.value) == goals.fields.map(\.value) { continue }
                if goals.validationError(field: "goals") == nil {
                    if !options.dryRun { try settings.setGoals(goals) }
                    report.goalsSet += 1
                }
                previous = goals
            }
            summaryGoals = []
        }
        guard force || pendingCount >= ImportService.batchSize else { return }
        let batches = pending
        pending = [:]
        pendingCount = 0
        for (source, samples) in batches.sorted(by: { $0.key.name < $1.key.name }) {
            if options.dryRun {
                report.saved += UInt64(samples.reduce(0) { $0 + 1 + Self.memberCount($1) })
                continue
            }
            let response = try await storeCall { try await store.save(samples, source: source, options: SaveOptions(uuidPolicy: .assign)) }
            for result in response.results {
                count(result)
                for member in result.objects { count(member) }
            }
        }
    }

    func count(_ result: SaveResult) {
        switch result.outcome {
        case .saved, .replaced: report.saved += 1
        case .keptExisting: report.keptExisting += 1
        }
    }

    static func memberCount(_ sample: Sample) -> Int {
        if case .correlation(let correlation) = sample.value { return correlation.objects.count }
        return 0
    }
}
