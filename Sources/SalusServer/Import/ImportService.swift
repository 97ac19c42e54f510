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
///   are also listed at top level), saves it once: the repeat is reported as kept. The identity
///   rests on instants, not on the export's date text (`ImportIdentity`), so exports written at
///   other UTC offsets merge; samples stored by imports before it are recognised
///   (`adoptingLegacyIdentities`).
/// - A heart-rate-variability record's list of instantaneous beats becomes a heartbeat series
///   beside it.
/// - `<Me>` sets characteristics only when asked (`characteristics`).
/// - `ActivitySummary` elements give the goal history: one entry for each day the goals changed
///   (the day's figures themselves are computed from the samples).
/// - `Workout` elements become workouts with their events, activities (one spanning the workout
///   when none is listed) and totals. Each `WorkoutRoute` becomes a route attached to the workout
///   once the workout is saved (its UUID is the store's): inline `Location`s at once, a
///   `FileReference` when the side file arrives (`ImportChunk.path`, after export.xml). A
///   referenced file that never arrives, or does not parse, is a problem in the report, never an
///   abort. Routes keep what Apple exported, even locations outside their workout.
/// - Side files arrive after export.xml, each in chunks of its own path; a file nothing refers to
///   is counted as not imported. A file above `ImportLimits.maximumSideFileBytes` is a problem
///   naming it and the limit; its bytes past the limit are dropped as they arrive, never kept.
/// - export.xml is held to ``ImportLimits`` (depth, attribute and markup sizes) as it streams,
///   and each electrocardiogram to its voltage count.
/// - `Audiogram` and `VisionPrescription` elements become samples of their kinds; a
///   `ClinicalRecord` waits for its FHIR file (`resourceFilePath`; a file larger than one sample
///   may be, `Validation.maximumSampleBytes`, is a problem naming it, never parsed), and each
///   `electrocardiograms/*.csv` file is an electrocardiogram of its own.
/// - Element kinds not imported (`export_cda.xml`, attachments the export names but does not
///   carry) are counted in the report, never silently dropped.
package struct ImportService: Sendable {
    let store: SampleStore
    let settings: PersonSettings
    /// The bounds every import is held to.
    let limits: ImportLimits
    /// The least time between two progress events (`ImportAppleHealthWithProgress`); the last one
    /// is always sent.
    let progressInterval: Duration

    /// Creates the service.
    package init(
        store: SampleStore, settings: PersonSettings, limits: ImportLimits = .standard, progressInterval: Duration = .milliseconds(250)
    ) {
        self.store = store
        self.settings = settings
        self.limits = limits
        self.progressInterval = progressInterval
    }

    /// Adds the method to the admin socket's router.
    package func register(into router: inout RPCRouter) {
        router.registerClientStreaming(SalusMethods.Import.importAppleHealth, onEventLoop: false) {
            (chunks: RPCRequestStream<Salus_V1_ImportChunk>, _) -> Salus_V1_ImportReport in
            try await self.importAppleHealth(chunks)
        }
        router.registerBidirectionalStreaming(SalusMethods.Import.importAppleHealthWithProgress, onEventLoop: false) {
            (chunks: RPCRequestStream<Salus_V1_ImportChunk>, writer: RPCWriter<Salus_V1_ImportEvent>, _) in
            let report = try await self.importAppleHealth(chunks) { progress in
                try await writer.write(Salus_V1_ImportEvent.with { $0.progress = progress })
            }
            try await writer.write(Salus_V1_ImportEvent.with { $0.report = report })
        }
    }

    /// The most problems a report lists (all are counted).
    static let listedProblems = 100
    /// Samples per save.
    static let batchSize = 1000

    /// Imports the export the chunks carry. `progress`, when given, is called with how far the
    /// import has come (`ImportRun.progress`) after a chunk of export.xml or a side file is
    /// processed, at most once per `progressInterval`, and once more, `done`, when everything
    /// is saved.
    func importAppleHealth(
        _ chunks: RPCRequestStream<Salus_V1_ImportChunk>,
        progress: ((Salus_V1_ImportProgress) async throws -> Void)? = nil
    ) async throws -> Salus_V1_ImportReport {
        let run = ImportRun(store: store, settings: settings, limits: limits)
        let clock = ContinuousClock()
        var lastProgress: ContinuousClock.Instant?
        func report(done: Bool = false) async throws {
            guard let progress else { return }
            let now = clock.now
            if !done, let lastProgress, now - lastProgress < progressInterval { return }
            lastProgress = now
            try await progress(run.progress(done: done))
        }
        var first = true
        var exportRead = false
        var sideFile: (path: String, data: Data, tooLarge: Bool)?
        for try await chunk in chunks {
            if first {
                run.options = chunk.options
                run.report.dryRun = chunk.options.dryRun
                first = false
            }
            if !chunk.path.isEmpty {
                if !exportRead {
                    try await Self.finishExport(run)
                    exportRead = true
                }
                if sideFile?.path != chunk.path {
                    if let done = sideFile { try await run.receive(done.path, data: done.tooLarge ? nil : done.data) }
                    sideFile = (chunk.path, Data(), false)
                }
                if sideFile!.data.count + chunk.data.count > limits.maximumSideFileBytes {
                    sideFile!.tooLarge = true
                    sideFile!.data = Data()
                } else if !sideFile!.tooLarge {
                    sideFile!.data.append(chunk.data)
                }
                if chunk.endOfFile, let done = sideFile {
                    try await run.receive(done.path, data: done.tooLarge ? nil : done.data)
                    sideFile = nil
                    try await report()
                }
                continue
            }
            guard !chunk.data.isEmpty else { continue }
            guard !exportRead else {
                throw RPCError.invalidArgument(
                    field: "data", value: "export.xml bytes after a side file", expected: "the whole export.xml first, then side files")
            }
            do {
                try await run.feed(chunk.data)
            } catch let error as ExportReadError {
                throw Self.refusal(error, expected: "well-formed XML")
            }
            try await run.flush(force: false)
            try await report()
        }
        if !exportRead { try await Self.finishExport(run) }
        if let done = sideFile { try await run.receive(done.path, data: done.tooLarge ? nil : done.data) }
        run.missingFiles()
        // Until everything is saved, the last running save included.
        repeat { try await run.flush(force: true) } while run.pendingCount > 0
        run.report.bytesRead = UInt64(run.reader.bytesRead)
        try await report(done: true)
        return run.report
    }

    /// The error of an export.xml that cannot be read: the parser's message after `expected`,
    /// or, for the reader's own rules (limits, DTDs), what was met and what they allow.
    static func refusal(_ error: ExportReadError, expected: String) -> RPCError {
        guard let allowed = error.expected else {
            return RPCError.invalidArgument(field: "data", value: "export.xml line \(error.line)", expected: "\(expected): \(error.message)")
        }
        return RPCError.invalidArgument(field: "data", value: "export.xml line \(error.line): \(error.message)", expected: allowed)
    }

    /// Ends export.xml: the reader's last bytes, the root checked, everything read saved (so the
    /// workouts that side files attach to have their UUIDs).
    static func finishExport(_ run: ImportRun) async throws {
        do {
            try run.reader.finish()
        } catch let error as ExportReadError {
            throw refusal(error, expected: "a complete export")
        }
        try await run.takeMapped(all: true)
        guard run.reader.rootName == "HealthData" else {
            throw RPCError.invalidArgument(
                field: "data", value: "a root element <\(run.reader.rootName ?? "")>", expected: "an Apple Health export (root element HealthData)")
        }
        run.exportRead = true
        repeat { try await run.flush(force: true) } while run.pendingCount > 0
    }
}

/// One import in progress: the reader, the samples read and not yet saved, the report.
final class ImportRun {
    let store: SampleStore
    let settings: PersonSettings
    let limits: ImportLimits
    let mapper: RecordMapper
    var options = Salus_V1_ImportOptions()
    var report = Salus_V1_ImportReport()
    var pending: [SourceRevision: [Sample]] = [:]
    var pendingCount = 0
    var characteristics: [Characteristic] = []
    var summaryGoals: [ActivityGoals] = []
    var appIDs: [String: String] = [:]
    /// Source names as the export writes them, cleaned (`add`).
    var sourceNames: [String: String] = [:]
    /// The routes of workouts waiting in `pending`, by source and position there: attached once
    /// the workout is saved.
    var routesOfPending: [SourceRevision: [Int: [ImportedRoute]]] = [:]
    /// The uses of side files not arrived yet, by path.
    var awaitingFiles: [String: [SideFileUse]] = [:]
    /// The last file of each path that served one use while others still wait for that path
    /// (nil: it was above the size limit); they take it if no other file of the path arrives.
    var lastOfPath: [String: Data?] = [:]
    /// The route files of workouts that were refused (`noteRoutesOfRefused`).
    var filesOfRefusedWorkouts: Set<String> = []
    /// The save running while the next batch is read: each source's samples with the store's
    /// answer, the routes of its workouts, and what had been read when it began (`Work`).
    private var saving: (
        task: Task<[(SourceRevision, [Sample], SaveResponse, alternates: [Int: Salus_V1_ImportedWorkout])], any Error>,
        routes: [SourceRevision: [Int: [ImportedRoute]]], read: Work
    )?
    /// Top-level elements of export.xml and side files read so far.
    private(set) var read = Work()
    /// What was read before the last completed save began: its samples are saved (or were
    /// refused), so it is done. Grows only; equals `read` once everything is saved.
    private(set) var done = Work()
    /// export.xml has been read to its end (and its root checked).
    var exportRead = false
    /// When the import began, for progress.
    let started = ContinuousClock.now

    /// Counts of what an import reads.
    struct Work {
        var elements: UInt64 = 0
        var sideFiles: UInt64 = 0
    }
    private(set) var reader: ExportXMLReader!

    /// What a side file is for, once it arrives.
    enum SideFileUse {
        /// The GPX of a route of the workout with this UUID.
        case route(ImportedRoute, workout: UUID)
        /// The FHIR resource of this `ClinicalRecord` element.
        case clinicalRecord(ExportElement)
    }

    init(store: SampleStore, settings: PersonSettings, limits: ImportLimits) {
        self.store = store
        self.settings = settings
        self.limits = limits
        let mapper = RecordMapper(catalog: store.catalog)
        self.mapper = mapper
        let catalog = store.catalog
        let work = OrderedWork<ExportElement, MappedElement> { element in ImportRun.map(element, mapper: mapper, catalog: catalog) }
        self.work = work
        reader = ExportXMLReader(limits: limits) { element in work.submit(element) }
    }

    /// The elements read and not yet taken, mapped and checked on every core (`map`), taken
    /// back in file order (`take`).
    let work: OrderedWork<ExportElement, MappedElement>

    /// Bytes of export.xml fed to the reader at a time: what is mapped at once is the workers'
    /// window plus one slice's elements, however large the client's chunks.
    static let feedSlice = 64 * 1024

    /// Feeds the next part of export.xml to the reader a slice at a time, taking what the
    /// workers have done after each slice (`take`), so that the elements in flight stay bounded.
    func feed(_ data: Data) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + Self.feedSlice, data.endIndex)
            try reader.feed(data[offset..<end])
            offset = end
            try await takeMapped(all: false)
        }
    }

    /// Takes what the workers have finished, in file order: with `all`, everything read.
    func takeMapped(all: Bool) async throws {
        while let outputs = try await work.results(all: all) {
            for mapped in outputs { take(mapped) }
        }
    }

    /// A sample made from an element and checked on a worker (`checked`): what `admit` needs.
    struct CheckedSample: Sendable {
        var sample: Sample
        var line: Int
        var name: String
        /// The children dropped so that the sample could be kept, listed when it is admitted.
        var changes: [ImportRefusal] = []
        /// Why it is refused, when it is.
        var refusal: ImportRefusal?
    }

    /// A top-level element as a worker leaves it: its samples made and checked, or the element
    /// itself for the kinds handled in order (`Me`, summaries, clinical records, others).
    enum MappedElement: Sendable {
        /// A Record: its sample, and a heartbeat series for a heart rate variability record.
        case record(name: String, line: Int, Result<CheckedSample, ImportRefusal>, series: Result<CheckedSample, ImportRefusal>?)
        /// A Correlation, Audiogram or VisionPrescription; `attachments`, a prescription's.
        case single(name: String, Result<CheckedSample, ImportRefusal>, attachments: Int)
        /// A Workout: the sample with the children changed to keep it, and its routes.
        case workout(ExportElement, Result<(CheckedSample, changes: [ImportRefusal]), ImportRefusal>, routes: Result<[ImportedRoute], ImportRefusal>)
        /// Any other element.
        case other(ExportElement)
    }

    /// What a worker does with one element: the mapping and the sample check, which depend on
    /// nothing but the element, the catalogue and the mapper.
    static func map(_ element: ExportElement, mapper: RecordMapper, catalog: TypeCatalog) -> MappedElement {
        switch element.name {
        case "Record":
            let sample: Sample
            do {
                sample = ImportIdentity.identified(try mapper.record(element).sample)
            } catch {
                return .record(name: element.name, line: element.line, .failure(error), series: nil)
            }
            let checkedSample = checked(sample, line: element.line, name: element.name, catalog: catalog)
            // Heart rate variability: the beats behind it, as a heartbeat series.
            var series: Result<CheckedSample, ImportRefusal>?
            if catalog.rules(for: "HKDataTypeIdentifierHeartbeatSeries") != nil {
                do {
                    if let made = try mapper.heartbeatSeries(element, record: sample) {
                        series = .success(checked(made, line: element.line, name: element.name, catalog: catalog))
                    }
                } catch {
                    series = .failure(error)
                }
            }
            return .record(name: element.name, line: element.line, .success(checkedSample), series: series)
        case "Correlation", "Audiogram", "VisionPrescription":
            let attachments = element.name == "VisionPrescription" ? element.children(named: "Attachment").count : 0
            do throws(ImportRefusal) {
                let sample: Sample
                switch element.name {
                case "Correlation": sample = try mapper.correlation(element)
                case "Audiogram": sample = try mapper.audiogram(element)
                default: sample = try mapper.visionPrescription(element)
                }
                return .single(
                    name: element.name, .success(checked(sample, line: element.line, name: element.name, catalog: catalog)),
                    attachments: attachments)
            } catch {
                return .single(name: element.name, .failure(error), attachments: 0)
            }
        case "Workout":
            // Apple's file may break rules apps are held to: the one child is changed or
            // dropped, the workout kept, and each change listed with its line.
            let workout: (sample: Sample, changes: [ImportRefusal])
            do {
                workout = try mapper.workoutKeepingWhole(element)
            } catch {
                return .workout(element, .failure(error), routes: .success([]))
            }
            // A route that cannot be read is a problem of its own, never the workout's.
            let routes: Result<[ImportedRoute], ImportRefusal>
            do {
                routes = .success(try mapper.routes(of: element))
            } catch {
                routes = .failure(error)
            }
            return .workout(
                element, .success((checked(workout.sample, line: element.line, name: element.name, catalog: catalog), workout.changes)),
                routes: routes)
        default:
            return .other(element)
        }
    }

    /// Counts a top-level element, mapped by a worker (`map`), and adds what this version
    /// imports; called in file order.
    func take(_ mapped: MappedElement) {
        read.elements += 1
        switch mapped {
        case .record(let name, _, let sample, let series):
            report.elements[name, default: 0] += 1
            switch sample {
            case .failure(let error):
                problem(error, element: name)
            case .success(let checked):
                admit(checked)
                switch series {
                case .failure(let error): problem(error, element: name)
                case .success(let checked): admit(checked)
                case nil: break
                }
            }
        case .single(let name, let sample, let attachments):
            report.elements[name, default: 0] += 1
            switch sample {
            case .failure(let error):
                problem(error, element: name)
            case .success(let checked):
                admit(checked)
                // The export names a prescription's attachments but does not carry their files.
                if attachments > 0 { report.notImported["VisionPrescription.Attachment", default: 0] += UInt64(attachments) }
            }
        case .workout(let element, let workout, let routes):
            report.elements[element.name, default: 0] += 1
            switch workout {
            case .failure(let error):
                problem(error, element: element.name)
                noteRoutesOfRefused(element)
            case .success(let (checked, changes)):
                var imported: [ImportedRoute] = []
                switch routes {
                case .failure(let error): problem(error, element: "WorkoutRoute")
                case .success(let found): imported = found
                }
                if let (source, index) = admit(checked) {
                    for change in changes { changed(change, element: element.name) }
                    if !imported.isEmpty { routesOfPending[source, default: [:]][index] = imported }
                } else {
                    noteRoutesOfRefused(element)
                }
            }
        case .other(let element):
            report.elements[element.name, default: 0] += 1
            takeInOrder(element)
        }
    }

    /// The elements whose handling is not a worker's: they wait for files or gather across the
    /// file.
    private func takeInOrder(_ element: ExportElement) {
        switch element.name {
        case "ClinicalRecord":
            // The resource is a side file (`/clinical-records/Observation-1.json`).
            guard let path = element["resourceFilePath"], !path.isEmpty else {
                problem(
                    ImportRefusal(line: element.line, field: "resourceFilePath", value: "", expected: "the path of the record's FHIR file"),
                    element: element.name)
                return
            }
            let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
            awaitingFiles[relative, default: []].append(.clinicalRecord(element))
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

    /// The route files of a workout that was refused: when they arrive they are counted as
    /// routes of a workout not imported, not as files nothing refers to.
    func noteRoutesOfRefused(_ workout: ExportElement) {
        for route in workout.children(named: "WorkoutRoute") {
            for reference in route.children(named: "FileReference") {
                if let path = reference["path"] { filesOfRefusedWorkouts.insert(RecordMapper.sideFilePath(path)) }
            }
        }
    }

    /// Adds a sample to the next save under its source's app id; its source and position in
    /// `pending`, or nil when it is refused (and reported).
    @discardableResult
    func add(_ sample: Sample, element: ExportElement) -> (SourceRevision, Int)? {
        add(sample, line: element.line, name: element.name)
    }

    /// `add(_:element:)` for a sample not read from one element (a route from a side file).
    @discardableResult
    func add(_ sample: Sample, line: Int, name elementName: String) -> (SourceRevision, Int)? {
        admit(Self.checked(sample, line: line, name: elementName, catalog: store.catalog))
    }

    /// `sample` through the one sample check (read-only types allowed), with a workout's bad
    /// children dropped where that keeps it: a pure function, run on the workers.
    static func checked(_ sample: Sample, line: Int, name elementName: String, catalog: TypeCatalog) -> CheckedSample {
        var (sample, errors) = catalog.prepareForSaving(sample, at: elementName, allowReadOnly: true)
        var result = CheckedSample(sample: sample, line: line, name: elementName)
        if !errors.isEmpty, let (repaired, changes) = Self.withoutBadChildren(sample, errors: errors, line: line, path: elementName) {
            let remaining = catalog.validationErrors(of: repaired, at: elementName, allowReadOnly: true)
            if remaining.isEmpty {
                result.changes = changes
                sample = repaired
                result.sample = repaired
            }
            errors = remaining
        }
        if let error = errors.first {
            result.refusal = ImportRefusal(line: line, field: error.field, value: error.value, expected: error.expected)
        }
        return result
    }

    /// Adds a checked sample to the next save under its source's app id, or reports its
    /// refusal; its source and position in `pending`, or nil when it is refused.
    @discardableResult
    func admit(_ checked: CheckedSample) -> (SourceRevision, Int)? {
        if let refusal = checked.refusal {
            problem(refusal, element: checked.name)
            return nil
        }
        for change in checked.changes { changed(change, element: checked.name) }
        let sample = checked.sample
        // Source names in real exports carry no-break spaces and trailing spaces: one source.
        // Cleaned once per name written, not once per record.
        let written = sample.sourceRevision.name
        let name: String
        if let cleaned = sourceNames[written] {
            name = cleaned
        } else {
            name = written.replacingOccurrences(of: "\u{00A0}", with: " ").trimmingCharacters(in: .whitespaces)
            sourceNames[written] = name
        }
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
        return (source, pending[source]!.count - 1)
    }

    /// A workout read from Apple's file without the children that break the type rules apps are
    /// held to: an event's or activity's metadata entry, the workout's own metadata entry, or a
    /// statistic, each named by an error of `errors`; nil when an error is about anything else
    /// (the workout itself), which stays a refusal. Each removal is a change with the workout's
    /// line (`line`), the error's field and value, and what was done. The sync identifier is made
    /// again without what was dropped.
    static func withoutBadChildren(_ sample: Sample, errors: [ValidationError], line: Int, path: String)
        -> (Sample, [ImportRefusal])?
    {
        guard case .workout(var workout) = sample.value else { return nil }
        var metadata = sample.metadata
        var changes: [ImportRefusal] = []
        let prefix = path + ".workout."
        /// `events[3].metadata.KEY` → (3, KEY).
        func indexed(_ text: Substring, _ name: String) -> (Int, String)? {
            guard text.hasPrefix(name + "["), let close = text.firstIndex(of: "]"),
                  let index = Int(text[text.index(text.startIndex, offsetBy: name.count + 1)..<close]) else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(".metadata.") else { return nil }
            return (index, String(rest.dropFirst(".metadata.".count)))
        }
        /// Statistics dropped so far, by activity index (nil: the workout's) and type: both of a
        /// statistic's figures maps may be at fault, and it is dropped and reported once.
        var droppedStatistics: Set<String> = []
        /// Drops the statistic named by `rest` (`statistics.T`, `allStatistics.T`,
        /// `activities[2].allStatistics.T`) from both figures maps; nil when `rest` names no
        /// statistic there, false when it was dropped before.
        func dropStatistic(_ rest: Substring) -> Bool? {
            var rest = rest
            var activity: Int?
            if rest.hasPrefix("activities["), let close = rest.firstIndex(of: "]") {
                activity = Int(rest[rest.index(rest.startIndex, offsetBy: "activities[".count)..<close])
                guard activity != nil else { return nil }
                rest = rest[rest.index(after: close)...].drop { $0 == "." }
            }
            guard let dot = rest.firstIndex(of: "."), ["statistics", "allStatistics"].contains(rest[..<dot]) else { return nil }
            let type = TypeIdentifier(String(rest[rest.index(after: dot)...]))
            guard droppedStatistics.insert("\(activity ?? -1)|\(type)").inserted else { return false }
            if let activity {
                guard workout.activities.indices.contains(activity) else { return nil }
                let dropped = workout.activities[activity].statistics.removeValue(forKey: type) != nil
                return workout.activities[activity].allStatistics.removeValue(forKey: type) != nil || dropped ? true : nil
            }
            let dropped = workout.statistics.removeValue(forKey: type) != nil
            return workout.allStatistics.removeValue(forKey: type) != nil || dropped ? true : nil
        }
        for error in errors {
            let done: String
            if error.field.hasPrefix(prefix) {
                let rest = error.field.dropFirst(prefix.count)
                if let dropped = dropStatistic(rest) {
                    guard dropped else { continue }
                    done = "the statistic is dropped"
                } else if let (index, key) = indexed(rest, "events"), workout.events.indices.contains(index),
                          workout.events[index].metadata.removeValue(forKey: key) != nil {
                    done = "the event's entry is dropped"
                } else if let (index, key) = indexed(rest, "activities"), workout.activities.indices.contains(index),
                          workout.activities[index].metadata.removeValue(forKey: key) != nil {
                    done = "the activity's entry is dropped"
                } else {
                    return nil
                }
            } else if error.field.hasPrefix(path + ".metadata."), !error.field.contains(MetadataKey.syncIdentifier),
                      !error.field.contains(MetadataKey.syncVersion),
                      metadata.removeValue(forKey: String(error.field.dropFirst(path.count + ".metadata.".count))) != nil {
                done = "the entry is dropped"
            } else {
                return nil
            }
            changes.append(ImportRefusal(
                line: line, field: error.field, value: error.value, expected: "\(error.expected); \(done), the workout kept"))
        }
        var repaired = sample
        repaired.value = .workout(workout)
        metadata[MetadataKey.syncIdentifier] = nil
        metadata[MetadataKey.syncVersion] = nil
        repaired.metadata = metadata
        // An identifier of the workout's own (not made by the import) is kept.
        if let own = sample.syncIdentifier, !own.hasPrefix(ImportIdentity.prefix) {
            repaired.metadata[MetadataKey.syncIdentifier] = .string(own)
            repaired.metadata[MetadataKey.syncVersion] = sample.metadata[MetadataKey.syncVersion]
            return (repaired, changes)
        }
        return (ImportIdentity.identified(repaired), changes)
    }

    /// Attaches the routes of a saved workout: inline ones at once, the others when their side
    /// file arrives.
    func attach(_ routes: [ImportedRoute], to workout: UUID) {
        for route in routes {
            if let file = route.file {
                awaitingFiles[file, default: []].append(.route(route, workout: workout))
            } else {
                add(mapper.routeSample(route, locations: route.locations, workout: workout), line: route.line, name: "WorkoutRoute")
            }
        }
    }

    /// A side file has arrived (nil: it was above the size limit): the uses waiting for it are
    /// served, then what that added is saved. Several uses of one path take one file each, in
    /// the order they were read, while files of that path keep arriving: a zip written before
    /// exported names held the whole UUID has two entries of one name for two routes of one
    /// minute, and salusctl sends both. Uses left when no more arrive take the last
    /// (`missingFiles`): Apple may name one file twice.
    func receive(_ path: String, data: Data?) async throws {
        read.sideFiles += 1
        guard var uses = awaitingFiles.removeValue(forKey: path) else {
            if path.hasPrefix("electrocardiograms/"), path.lowercased().hasSuffix(".csv") {
                // Electrocardiograms are files of their own, named by no element.
                report.elements["electrocardiograms/*.csv", default: 0] += 1
                guard let data else {
                    problem(
                        ImportRefusal(
                            line: 0, field: path, value: "more than \(limits.maximumSideFileBytes) bytes",
                            expected: "a file of at most \(limits.maximumSideFileBytes) bytes"),
                        element: "electrocardiogram")
                    return
                }
                do {
                    add(try ElectrocardiogramCSV.sample(from: data, path: path, maximumVoltages: limits.maximumElectrocardiogramVoltages), line: 0, name: path)
                } catch {
                    problem(error, element: "electrocardiogram")
                }
                try await flush(force: false)
                return
            }
            if filesOfRefusedWorkouts.contains(path) {
                report.notImported["route of a workout not imported", default: 0] += 1
            } else {
                report.notImported["file not referenced by export.xml", default: 0] += 1
            }
            return
        }
        if uses.count > 1 {
            awaitingFiles[path] = Array(uses.dropFirst())
            lastOfPath[path] = data
            uses = [uses[0]]
        } else {
            lastOfPath[path] = nil
        }
        for use in uses { serve(use, path: path, data: data) }
        try await flush(force: false)
    }

    /// Serves one use of a side file with the file's bytes (nil: above the size limit).
    func serve(_ use: SideFileUse, path: String, data: Data?) {
        switch use {
        case .route(let route, let workout):
            guard let data else {
                problem(
                    ImportRefusal(
                        line: route.line, field: "FileReference.path", value: "\(path): more than \(limits.maximumSideFileBytes) bytes",
                        expected: "a file of at most \(limits.maximumSideFileBytes) bytes"),
                    element: "WorkoutRoute")
                return
            }
            do {
                let locations = try GPX.read(data)
                add(mapper.routeSample(route, locations: locations, workout: workout), line: route.line, name: "WorkoutRoute")
            } catch {
                problem(
                    ImportRefusal(line: route.line, field: "FileReference.path", value: path, expected: "a GPX 1.1 route: \(error)"),
                    element: "WorkoutRoute")
            }
        case .clinicalRecord(let element):
            guard let data else {
                problem(
                    ImportRefusal(
                        line: element.line, field: "resourceFilePath", value: "\(path): more than \(limits.maximumSideFileBytes) bytes",
                        expected: "a file of at most \(limits.maximumSideFileBytes) bytes"),
                    element: element.name)
                return
            }
            // A resource larger than a sample may be is not parsed: the record could not be
            // read back (the one sample check would refuse it after the parse).
            guard data.count <= Validation.maximumSampleBytes else {
                problem(
                    ImportRefusal(
                        line: element.line, field: "resourceFilePath", value: "\(path): \(data.count) bytes",
                        expected: "a FHIR resource of at most \(Validation.maximumSampleBytes) bytes: a clinical record is read "
                            + "back whole, in one frame"),
                    element: element.name)
                return
            }
            do {
                add(try mapper.clinicalRecord(element, fhir: data), element: element)
            } catch {
                problem(error, element: element.name)
            }
        }
    }

    /// Serves the uses left waiting for a path whose file served others (`receive`) with its
    /// last file, and reports every use whose side file never arrived.
    func missingFiles() {
        for (path, uses) in awaitingFiles.sorted(by: { $0.key < $1.key }) {
            if let last = lastOfPath[path] {
                for use in uses { serve(use, path: path, data: last) }
                continue
            }
            for use in uses {
                switch use {
                case .route(let route, _):
                    problem(
                        ImportRefusal(
                            line: route.line, field: "FileReference.path", value: path,
                            expected: "a file the import sends after export.xml (the export's workout-routes folder); none arrived"),
                        element: "WorkoutRoute")
                case .clinicalRecord(let element):
                    problem(
                        ImportRefusal(
                            line: element.line, field: "resourceFilePath", value: path,
                            expected: "a file the import sends after export.xml (the export's clinical-records folder); none arrived"),
                        element: element.name)
                }
            }
        }
        awaitingFiles = [:]
        lastOfPath = [:]
    }

    func problem(_ refusal: ImportRefusal, element: String) {
        report.skipped += 1
        list(refusal, element: element)
    }

    /// A child of an element that was changed or dropped so that the element could be kept
    /// (`RecordMapper.workoutKeepingWhole`): listed among the problems, its `expected` saying
    /// what was done, but the element is not skipped.
    func changed(_ refusal: ImportRefusal, element: String) {
        list(refusal, element: element)
    }

    private func list(_ refusal: ImportRefusal, element: String) {
        guard report.problems.count < ImportService.listedProblems else { return }
        report.problems.append(Salus_V1_ImportProblem.with {
            $0.line = UInt32(clamping: refusal.line)
            $0.element = element
            $0.field = refusal.field
            $0.value = refusal.value
            $0.expected = refusal.expected
        })
    }

    /// Saves what was read once a batch is full, each source in its own transaction. The save
    /// runs while the next batch is read; with `force`, everything read is saved on return.
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
        let batches = pending.sorted(by: { $0.key.name < $1.key.name })
        let routes = routesOfPending
        pending = [:]
        routesOfPending = [:]
        pendingCount = 0
        if options.dryRun {
            for (source, samples) in batches {
                report.saved += UInt64(samples.reduce(0) { $0 + 1 + Self.memberCount($1) })
                let alternates = options.keepDuplicates ? [:] : try await Self.keepingAlternates(samples, source: source, store: store).alternates
                report.alternates += alternates.sorted(by: { $0.key < $1.key }).map(\.value)
                // Routes are checked against a stand-in for the workout's UUID.
                for (index, workoutRoutes) in routes[source] ?? [:] where alternates[index] == nil { attach(workoutRoutes, to: UUID()) }
            }
            done = read
            return
        }
        // One batch saves while the next is read: the previous save is finished first, so
        // batches are saved in the order they were read.
        try await finishSaving()
        if batches.isEmpty {
            done = read
        } else {
            let store = self.store
            let keepDuplicates = options.keepDuplicates
            saving = (
                Task {
                    var responses: [(SourceRevision, [Sample], SaveResponse, alternates: [Int: Salus_V1_ImportedWorkout])] = []
                    for (source, read) in batches {
                        let adopted = try await storeCall { try await ImportRun.adoptingLegacyIdentities(read, appID: source.appID, store: store) }
                        // Sources are saved one after another, so a workout is compared with
                        // those of the sources saved before it too.
                        let (samples, alternates) = keepDuplicates
                            ? (adopted, [:])
                            : try await storeCall { try await ImportRun.keepingAlternates(adopted, source: source, store: store) }
                        responses.append((
                            source, samples,
                            try await storeCall { try await store.save(samples, source: source, options: SaveOptions(uuidPolicy: .assign)) },
                            alternates))
                    }
                    return responses
                }, routes, read)
        }
        if force { try await finishSaving() }
    }

    /// Waits for the running save, counts what it saved and attaches the routes of its workouts
    /// (which may add samples to `pending`).
    private func finishSaving() async throws {
        guard let (task, routes, read) = saving else { return }
        saving = nil
        for (source, samples, response, alternates) in try await task.value {
            for (index, var listed) in alternates.sorted(by: { $0.key < $1.key }) where index < response.results.count {
                listed.alternateUuid = response.results[index].uuid.uuidString
                report.alternates.append(listed)
            }
            for (result, sample) in zip(response.results, samples) {
                count(result)
                for member in result.objects { count(member) }
                // A correlation already there comes back without its members: they are there too,
                // and counted as they were when saved, so every run counts the same samples.
                if result.objects.isEmpty { for _ in 0..<Self.memberCount(sample) { count(result) } }
            }
            // An alternate's routes are not saved: the kept workout has its own.
            for (index, workoutRoutes) in (routes[source] ?? [:]).sorted(by: { $0.key < $1.key })
            where index < response.results.count && alternates[index] == nil {
                attach(workoutRoutes, to: response.results[index].uuid)
            }
        }
        done = read
    }

    /// How far the import has come: what is done (saved, or refused and reported), of what the
    /// client said there is. While export.xml is read, its element count is estimated from the
    /// bytes read (never below one more than those read: its end is still ahead); once it is
    /// read, it is exact. The processed counts equal the totals only when `done` is true.
    func progress(done finished: Bool) -> Salus_V1_ImportProgress {
        Salus_V1_ImportProgress.with {
            let bytes = UInt64(max(0, reader.bytesRead))
            $0.bytesProcessed = bytes
            $0.bytesTotal = options.exportBytes
            $0.recordsProcessed = done.elements
            $0.exportRead = exportRead
            if exportRead {
                $0.recordsTotal = read.elements
            } else if options.exportBytes > 0, bytes > 0 {
                // The elements the reader has handed over for those bytes: taken, or still with
                // the workers.
                let parsed = read.elements + UInt64(work.itemsInFlight)
                let estimate = (Double(parsed) * Double(options.exportBytes) / Double(bytes)).rounded()
                $0.recordsTotal = max(UInt64(min(estimate, 1e15)), parsed + 1)
            }
            $0.sideFilesProcessed = done.sideFiles
            $0.sideFilesTotal = max(options.sideFiles, read.sideFiles)
            $0.saved = report.saved
            $0.keptExisting = report.keptExisting
            $0.skipped = report.skipped
            let elapsed = ContinuousClock.now - started
            $0.elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            $0.done = finished
        }
    }

    /// `samples` (read for `source`) with each workout that is the same workout as one stored
    /// from another source (`WorkoutDuplicates`) made its alternate, in its place; and those
    /// alternates as the report lists them, by position.
    static func keepingAlternates(
        _ samples: [Sample], source: SourceRevision, store: SampleStore
    ) async throws -> (samples: [Sample], alternates: [Int: Salus_V1_ImportedWorkout]) {
        let duplicates = WorkoutDuplicates(store: store)
        var samples = samples
        var alternates: [Int: Salus_V1_ImportedWorkout] = [:]
        for index in samples.indices where samples[index].type == WorkoutRecording.workoutType {
            guard let kept = try await duplicates.stored(sameAs: samples[index], source: source) else { continue }
            var listed = WorkoutDuplicates.listed(samples[index], source: source.appID)
            WorkoutDuplicates.markAlternate(&listed, of: kept)
            alternates[index] = listed
            samples[index] = WorkoutDuplicates.alternate(samples[index], of: kept)
        }
        return (samples, alternates)
    }

    /// `samples` (read for `appID`), each of which a sample stored under the identity imports
    /// had before `ImportIdentity` (the export's date text, `ImportIdentity.isLegacy`) names
    /// taking that sample's identifier, so the store keeps the sample already there; correlation
    /// members included. The stored samples are those of the batch's types and dates, read once
    /// per type, and recognised by `ImportIdentity` computed from what was stored: an export
    /// written at another UTC offset than the one imported before merges too. Only samples with
    /// an identifier of the old form are read, so a store without them decodes nothing.
    static func adoptingLegacyIdentities(_ samples: [Sample], appID: String, store: SampleStore) async throws -> [Sample] {
        var windows: [TypeIdentifier: (start: Date, end: Date)] = [:]
        func note(_ sample: Sample) {
            guard sample.syncIdentifier?.hasPrefix(ImportIdentity.prefix) == true else { return }
            let known = windows[sample.type]
            windows[sample.type] = (min(known?.start ?? sample.startDate, sample.startDate), max(known?.end ?? sample.endDate, sample.endDate))
        }
        for sample in samples {
            note(sample)
            if case .correlation(let correlation) = sample.value { correlation.objects.forEach(note) }
        }
        // The old identifier of each stored sample, by the identity it has today. The window is a
        // second wider each side: it holds samples that overlap it, which an instant at its very
        // edge does not.
        var legacy: [TypeIdentifier: [String: String]] = [:]
        for (type, window) in windows {
            // Only samples whose identifier sorts between `applehealth:` and `applehealth:v2|` (the
            // old forms, and routes, ECGs and clinical records, which `isLegacy` leaves out) are
            // read: a store imported into by this version decodes nothing here.
            let predicate = SamplePredicate.and([
                .sources([appID]), .dateWindow(DateWindow(start: window.start - 1, end: window.end + 1)),
                .metadata(key: MetadataKey.syncIdentifier, test: .comparison(.greaterThanOrEqual, .string("applehealth:"))),
                .metadata(key: MetadataKey.syncIdentifier, test: .comparison(.lessThan, .string(ImportIdentity.prefix))),
            ])
            var pages = try store.samples(SampleQuery(type: type, predicate: predicate)).makeAsyncIterator()
            while let page = try await pages.next() {
                for stored in page {
                    guard let identifier = stored.syncIdentifier, ImportIdentity.isLegacy(identifier) else { continue }
                    legacy[type, default: [:]][ImportIdentity.identifier(of: stored)] = identifier
                }
            }
        }
        guard !legacy.isEmpty else { return samples }
        func adopted(_ sample: Sample) -> Sample {
            var result = sample
            if case .correlation(var correlation) = result.value {
                correlation.objects = correlation.objects.map(adopted)
                result.value = .correlation(correlation)
            }
            if let identifier = sample.syncIdentifier, let old = legacy[sample.type]?[identifier] {
                result.metadata[MetadataKey.syncIdentifier] = .string(old)
            }
            return result
        }
        return samples.map(adopted)
    }

    func count(_ result: SaveResult) {
        switch result.outcome {
        case .saved, .replaced: report.saved += 1
        case .keptExisting, .present, .deletedHere: report.keptExisting += 1
        }
    }

    static func memberCount(_ sample: Sample) -> Int {
        if case .correlation(let correlation) = sample.value { return correlation.objects.count }
        return 0
    }
}
