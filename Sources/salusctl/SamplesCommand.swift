import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusReport

/// `salusctl samples TYPE`: the owner browses the samples of one type, every app's, through the
/// admin socket.
struct Samples: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the samples of one type, from every app.",
        discussion: """
            TYPE is a full identifier (HKQuantityTypeIdentifierStepCount, \
            org.example.migraine.severity) or a short name (stepCount, sleepAnalysis, migraine.severity); \
            `salusctl types` lists them.

            Samples are listed oldest first, by start date. A sample is listed when its period overlaps \
            [--since, --until]. Dates are ISO 8601 (2026-11-20T22:30:00Z, 2026-11-20T23:30+01:00, \
            2026-11-20T22:30 in local time) or a day (2026-11-20), which means that day's start for \
            --since and its end for --until, in local time.

            Quantities are shown in the unit the app saved them in (the store keeps that unit for \
            display beside the value in the type's canonical unit); preferred units are not applied \
            yet. Category values are shown by their case name from the type registry, with the raw \
            value. Times are shown in local time.

            At a terminal, sleepAnalysis samples are followed by a one-line hypnogram per night \
            (awake highest, deep lowest, in bed a dot), coloured by stage unless NO_COLOR is set; a \
            night belongs to the day it ended on. Piped output is the plain table.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The type: identifier or short name.", valueName: "type"))
    var type: String

    @Option(name: .long, help: ArgumentHelp("Only samples that end at or after this date.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only samples that start at or before this date.", valueName: "date"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("Only samples saved by this app id (repeat for several).", valueName: "app-id"))
    var source: [String] = []

    @Option(name: .long, help: ArgumentHelp("At most this many samples.", valueName: "n"))
    var limit: Int?

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    func validate() throws {
        if let limit, limit <= 0 {
            throw ValidationError("--limit: \(limit) is not valid; expected a positive whole number")
        }
        for app in source where app.isEmpty {
            throw ValidationError("--source: the app id is empty; expected an app id such as org.example.sleepdiary")
        }
        let start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        if let start, let end, start > end {
            throw ValidationError("--until: \(until!) is before --since \(since!); expected a date at or after --since")
        }
    }

    func run(admin: AdminClient) async throws {
        let registry = Registry(try await admin.types())
        let definition = try registry.resolve(type)

        var predicates: [SamplePredicate] = []
        let start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        if start != nil || end != nil {
            predicates.append(.date(start: start, end: end))
        }
        if !source.isEmpty {
            predicates.append(.sources(Set(source)))
        }
        let query = SampleQueryDescriptor(
            type: SampleType(definition.identifier),
            predicate: predicates.isEmpty ? nil : predicates.count == 1 ? predicates[0] : .and(predicates),
            sortDescriptors: [.startDate()],
            limit: limit
        )
        let output = SampleOutput(json: json, registry: registry, definition: definition, style: json ? TerminalStyle(graphics: false, colours: false) : .standardOutput)
        output.begin()
        do {
            for try await sample in query.samples(for: admin.store) {
                output.write(sample)
            }
        } catch let error as SalusError {
            output.end()
            throw CommandFailure(error.message)
        }
        output.end()
    }
}

/// Parses `--since` and `--until` values.
enum DateArgument {
    /// A date from ISO 8601 (with or without zone and fractional seconds) or a bare day; a day is
    /// its start, or with `endOfDay` the start of the next day.
    static func parse(_ text: String, flag: String, endOfDay: Bool) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let zoned = ISO8601DateFormatter()
        zoned.formatOptions = [.withInternetDateTime]
        if let date = zoned.date(from: trimmed) { return date }
        zoned.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = zoned.date(from: trimmed) { return date }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = .current
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mmXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSS"] {
            local.dateFormat = format
            if let date = local.date(from: trimmed) { return date }
        }
        local.dateFormat = "yyyy-MM-dd"
        if trimmed.count == 10, let day = local.date(from: trimmed) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let start = calendar.startOfDay(for: day)
            return endOfDay ? calendar.date(byAdding: .day, value: 1, to: start) ?? start : start
        }
        throw ValidationError(
            "\(flag): \"\(text)\" is not a date; expected ISO 8601 such as 2026-11-20T22:30:00Z or "
                + "2026-11-20T23:30+01:00, or a day such as 2026-11-20"
        )
    }
}

/// The registered types, for resolving short names and naming category values.
struct Registry {
    /// Every registered type but the characteristics.
    let types: [RegisteredType]
    /// Every registered type, characteristics included.
    let all: [RegisteredType]
    let activityNames: [UInt32: String]

    init(_ listing: TypeListing) {
        all = listing.types
        types = listing.types.filter { $0.kind != .characteristic }
        activityNames = Dictionary(
            listing.workoutActivityTypes.map { ($0.rawValue, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The short name of an identifier: "stepCount" for HKQuantityTypeIdentifierStepCount,
    /// "workout" for HKWorkoutTypeIdentifier, "migraine.severity" for
    /// org.example.migraine.severity (the part after the plugin's reverse-DNS prefix is not known
    /// here, so the last two components).
    static func shortNames(_ identifier: String) -> [String] { TypeNames.shortNames(identifier) }

    /// The type `name` names: its identifier, else its short name (case-insensitive).
    func resolve(_ name: String) throws -> RegisteredType {
        let identifier: String
        do {
            identifier = try TypeNames.resolve(name, among: types.map(\.identifier))
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
        guard let type = types.first(where: { $0.identifier == identifier }) else { throw CommandFailure("TYPE: \(identifier) is not registered") }
        return type
    }

    /// The case name of a category value ("asleepREM"), if the type declares it.
    func caseName(_ raw: Int, of type: RegisteredType) -> String? {
        type.cases.first { $0.rawValue == Int64(raw) }?.name
    }
}

/// Writes samples as a table or as a JSON array, one at a time.
final class SampleOutput {
    let json: Bool
    let registry: Registry
    let definition: RegisteredType
    private var rows: [[String]] = []
    private var count = 0
    private let dateStyle = Date.ISO8601FormatStyle(timeZone: .current)
    /// At a terminal, sleep samples are kept for the hypnograms printed at the end.
    private let style: TerminalStyle
    private var sleep: [StageInterval] = []
    private var drawsNights: Bool { style.graphics && definition.identifier == CategoryTypeIdentifier.sleepAnalysis.rawValue }

    init(json: Bool, registry: Registry, definition: RegisteredType, style: TerminalStyle = TerminalStyle(graphics: false, colours: false)) {
        self.json = json
        self.registry = registry
        self.definition = definition
        self.style = style
    }

    func begin() {
        if json { print("[", terminator: "") } else { rows = [["START", "END", "VALUE", "SOURCE", "DEVICE", "UUID"]] }
    }

    func write(_ sample: Sample) {
        count += 1
        if drawsNights, case .category(let raw) = sample.value, let stage = SleepStage(rawValue: raw) {
            sleep.append(StageInterval(stage: stage, start: sample.startDate, end: sample.endDate))
        }
        if json {
            let object = jsonObject(sample)
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            print((count == 1 ? "\n  " : ",\n  ") + String(decoding: data, as: UTF8.self), terminator: "")
            return
        }
        rows.append([
            sample.startDate.formatted(dateStyle), sample.endDate.formatted(dateStyle), valueText(sample),
            sample.sourceRevision.appID, deviceText(sample.device), sample.uuid.uuidString.lowercased(),
        ])
        // Print in chunks so that a long listing starts at once and memory stays bounded.
        if rows.count >= 500 { flushRows() }
    }

    func end() {
        if json {
            print(count == 0 ? "]" : "\n]")
            return
        }
        flushRows()
        print("\(count) sample\(count == 1 ? "" : "s") of \(definition.identifier)")
        if drawsNights, !sleep.isEmpty {
            let nights = Nights.group(sleep, timeZone: .current)
            print("\nNights (\(style.paint("█ awake", .orange)) \(style.paint("▆ REM", .lightBlue)) \(style.paint("▄ core", .blue)) \(style.paint("▂ deep", .darkBlue)) \(style.paint("· in bed", .grey))):")
            let width = max(24, min(96, Terminal.columns - 86))
            for night in nights {
                print(TerminalHypnogram.line(night, width: width, timeZone: .current, style: style))
            }
        }
    }

    private var printedHeader = false
    private func flushRows() {
        guard rows.count > (printedHeader ? 0 : 1) else { return }
        print(Table.render(rows))
        printedHeader = true
        rows = []
    }

    /// The VALUE column: a line of the kinds people read most; any other kind (a new one
    /// included, with no line here) by its kind's name.
    func valueText(_ sample: Sample) -> String {
        if case .quantity(let quantity) = sample.value { return quantity.description }
        if case .category(let raw) = sample.value { return registry.caseName(raw, of: definition).map { "\($0) (\(raw))" } ?? "\(raw)" }
        if case .workout(let workout) = sample.value {
            return registry.activityNames[UInt32(clamping: workout.activityType)].map { "workout \($0)" } ?? "workout \(workout.activityType)"
        }
        if case .visionPrescription(let prescription) = sample.value { return "prescription \(prescription.prescriptionType)" }
        if case .document(let document) = sample.value { return "document \(document.title ?? document.contentType)" }
        if case .electrocardiogram(let ecg) = sample.value { return "ECG \(ecg.classification), \(ecg.numberOfVoltageMeasurements) voltages" }
        if case .audiogram(let audiogram) = sample.value { return "audiogram, \(audiogram.sensitivityPoints.count) frequencies" }
        if case .heartbeatSeries(let series) = sample.value { return "\(series.count) heartbeats" }
        if case .stateOfMind(let state) = sample.value {
            return "\(state.kind) valence \(state.valence)" + (state.valenceClassification.map { " (\($0))" } ?? "")
        }
        if case .medicationDoseEvent(let event) = sample.value {
            return "dose \(event.logStatus) \(event.doseQuantity.map { "\($0) \(event.unit)" } ?? "")"
        }
        if case .userAnnotatedMedication(let medication) = sample.value {
            return "medication \(medication.nickname ?? medication.displayText) (\(medication.generalForm))"
                + (medication.isArchived ? ", archived" : "") + (medication.hasSchedule ? ", scheduled" : "")
        }
        if case .scoredAssessment(let assessment) = sample.value { return "\(assessment.instrument) score \(assessment.score) (\(assessment.risk))" }
        if case .workoutRoute(let route) = sample.value {
            return "route of workout \(route.workoutUUID.uuidString.lowercased()), \(route.locationCount) locations"
        }
        if case .clinicalRecord(let record) = sample.value {
            return "\(record.resourceType)\(record.displayName.isEmpty ? "" : " \(record.displayName)") from \(record.sourceName)"
        }
        if case .correlation(let correlation) = sample.value {
            return correlation.objects.map { member in
                let name = member.type.rawValue.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
                    .replacingOccurrences(of: "HKCategoryTypeIdentifier", with: "")
                if case .quantity(let quantity) = member.value { return "\(name) \(quantity)" }
                if case .category(let raw) = member.value { return "\(name) \(raw)" }
                return name
            }.joined(separator: ", ")
        }
        return sample.kind.rawValue
    }

    func deviceText(_ device: Device?) -> String {
        guard let device else { return "-" }
        let parts = [device.name, device.model ?? device.hardwareVersion].compactMap { $0 }
        return parts.isEmpty ? (device.manufacturer ?? device.localIdentifier ?? "-") : parts.joined(separator: " ")
    }

    func jsonObject(_ sample: Sample) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": sample.uuid.uuidString.lowercased(),
            "type": sample.type.rawValue,
            "startDate": sample.startDate.formatted(dateStyle),
            "endDate": sample.endDate.formatted(dateStyle),
            "creationDate": sample.creationDate.formatted(dateStyle),
        ]
        switch sample.value {
        case .quantity(let quantity):
            object["quantity"] = ["value": quantity.value, "unit": quantity.unit.description]
        case .category(let raw):
            var category: [String: Any] = ["value": raw]
            if let name = registry.caseName(raw, of: definition) { category["name"] = name }
            object["category"] = category
        case .correlation(let correlation):
            object["objects"] = correlation.objects.map { jsonObject($0) }
        default:
            // Every other kind, a new one included: the text the table shows.
            object["value"] = valueText(sample)
        }
        var source: [String: Any] = ["appID": sample.sourceRevision.appID, "name": sample.sourceRevision.name]
        if let version = sample.sourceRevision.version { source["version"] = version }
        if let productType = sample.sourceRevision.productType { source["productType"] = productType }
        if let osVersion = sample.sourceRevision.osVersion { source["osVersion"] = osVersion }
        object["sourceRevision"] = source
        if let device = sample.device {
            let fields: [(String, String?)] = [
                ("name", device.name), ("manufacturer", device.manufacturer), ("model", device.model),
                ("hardwareVersion", device.hardwareVersion), ("firmwareVersion", device.firmwareVersion),
                ("softwareVersion", device.softwareVersion), ("localIdentifier", device.localIdentifier),
                ("udiDeviceIdentifier", device.udiDeviceIdentifier),
            ]
            object["device"] = Dictionary(uniqueKeysWithValues: fields.compactMap { key, value in value.map { (key, $0) } })
        }
        if !sample.metadata.isEmpty {
            object["metadata"] = sample.metadata.mapValues { value -> Any in
                switch value {
                case .string(let string): string
                case .number(let number): number
                case .bool(let bool): bool
                case .date(let date): date.formatted(dateStyle)
                case .quantity(let quantity): quantity.description
                }
            }
        }
        return object
    }
}

/// The terminal standard output is connected to.
enum Terminal {
    /// Its width in columns: `TIOCGWINSZ`, else `COLUMNS`, else 80.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }
}
