import CLibXML2
import Foundation
import SalusModel

/// A failure to write an export: the file could not be opened or written.
package struct AppleHealthWriteError: Error, CustomStringConvertible {
    /// What failed, with the path.
    package var description: String
}

/// Writes Apple Health's `export.xml`, element by element, with libxml2's `xmlTextWriter`
/// straight to a file: memory holds one element at a time, never the document. What it writes
/// is what `ExportXMLReader` and `RecordMapper` read back to the same samples.
///
/// **Rules.**
/// - The document is `HealthData` with no DOCTYPE (the DTD Apple writes is itself broken and no
///   reader needs it), then `ExportDate`, `Me`, and the samples in the caller's order; Apple puts
///   `Record`s first, then `Correlation`s, `Workout`s and `ActivitySummary`s, and
///   `AppleHealthWriter.rank(of:)` gives that order.
/// - Dates are `yyyy-MM-dd HH:mm:ss ±HHMM` in `timeZone`, whole seconds, as Apple writes them:
///   fractions of a second are not kept.
/// - Quantities keep the unit they are given, written as HealthKit writes units (`mL/min·kg`);
///   category values are case names (`HKCategoryValueSleepAnalysisAsleepCore`); metadata values
///   are text (`5348 cm`, `1`/`0` for booleans, dates as above).
/// - A sample's source is written as its source name and version; its app id, product type and
///   OS version have no place in the format.
/// - Only records, correlations and workouts have elements; `write(_:)` returns false for other
///   kinds, so the caller can count what the format could not hold.
package final class AppleHealthWriter {
    private var writer: xmlTextWriterPtr?
    private let path: String
    private let names: ExportNames
    private let timeZone: TimeZone
    /// The routes to name in each workout, by the workout's UUID: each route sample and the path
    /// of its GPX file inside the export's folder (`workout-routes/route_….gpx`).
    package var routes: [UUID: [(route: Sample, path: String)]] = [:]

    /// A writer of a new file at `path` (replaced if it exists); dates in `timeZone`.
    package init(path: String, names: ExportNames, timeZone: TimeZone) throws {
        guard let writer = xmlNewTextWriterFilename(path, 0) else {
            throw AppleHealthWriteError(description: "\(path): cannot be created")
        }
        self.writer = writer
        self.path = path
        self.names = names
        self.timeZone = timeZone
        xmlTextWriterSetIndent(writer, 1)
        xmlTextWriterSetIndentString(writer, " ")
    }

    deinit {
        if let writer { xmlFreeTextWriter(writer) }
    }

    /// The order an element of this kind takes in an export: records, then correlations, then
    /// workouts; nil for kinds the format does not hold.
    package static func rank(of kind: ObjectKind) -> Int? {
        switch kind {
        case .quantity, .category: 0
        case .correlation: 1
        case .workout: 2
        case .audiogram: 3
        case .visionPrescription: 4
        case .clinicalRecord, .electrocardiogram: 5
        default: nil
        }
    }

    /// Starts the document: `HealthData`, `ExportDate` and `Me` with the characteristics Apple
    /// exports (date of birth, biological sex, blood type, skin type, cardio fitness medications
    /// use); one that is not set is written as Apple does, empty or its notSet case.
    package func begin(exportDate: Date, locale: String, characteristics: [Characteristic]) throws {
        try check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil))
        try start("HealthData")
        try attribute("locale", locale)
        try start("ExportDate")
        try attribute("value", date(exportDate))
        try end()
        try start("Me")
        let values = Dictionary(characteristics.map { ($0.type.rawValue, $0.value) }) { first, _ in first }
        for type in Self.meCharacteristics {
            switch values[type] ?? nil {
            case .date(let day)?:
                try attribute(type, day.description)
            case .enumeration(let raw)?:
                try attribute(type, names.characteristicValue(raw, of: type) ?? String(raw))
            case nil:
                try attribute(type, type == TypeIdentifier.dateOfBirth.rawValue ? "" : names.characteristicValue(0, of: type) ?? "")
            }
        }
        try end()
    }

    /// The characteristics `Me` holds (shared/reference/healthkit-catalogue.md: wheelchair use,
    /// move mode and reference sex are not exported).
    static let meCharacteristics = [
        "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
        "HKCharacteristicTypeIdentifierBloodType", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
        "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse",
    ]

    /// Writes `sample` as a `Record`, `Correlation` or `Workout`; false (nothing written) for
    /// other kinds.
    @discardableResult
    package func write(_ sample: Sample) throws -> Bool {
        switch sample.value {
        case .quantity, .category:
            try record(sample)
        case .correlation(let correlation):
            try start("Correlation")
            try attribute("type", sample.type.rawValue)
            try source(sample)
            try dates(sample)
            try metadata(sample.metadata)
            for member in correlation.objects { try record(member) }
            try end()
        case .workout(let workout):
            try self.workout(workout, of: sample)
        case .audiogram(let audiogram):
            try self.audiogram(audiogram, of: sample)
        case .visionPrescription(let prescription):
            try self.prescription(prescription, of: sample)
        default:
            return false
        }
        return true
    }

    /// An `Audiogram` with one `SensitivityPoint` per frequency (hertz): each ear's first test
    /// as `leftEarValue`/`rightEarValue` in dBHL, with its masking and clamping range.
    private func audiogram(_ audiogram: Audiogram, of sample: Sample) throws {
        try start("Audiogram")
        try attribute("type", sample.type.rawValue)
        try source(sample)
        try dates(sample)
        try metadata(sample.metadata)
        for point in audiogram.sensitivityPoints {
            try start("SensitivityPoint")
            try attribute("frequencyValue", Self.number(point.frequency))
            try attribute("frequencyUnit", "Hz")
            for (prefix, side) in [("leftEar", AudiogramSensitivityTest.Side.left), ("rightEar", .right)] {
                guard let test = point.tests.first(where: { $0.side == side }) else { continue }
                try attribute("\(prefix)Value", Self.number(test.sensitivity))
                try attribute("\(prefix)Unit", "dBHL")
                try attribute("\(prefix)Masked", test.masked ? "true" : "false")
                if let lower = test.clampingRange?.lowerBound { try attribute("\(prefix)ClampingRangeLowerBound", Self.number(lower)) }
                if let upper = test.clampingRange?.upperBound { try attribute("\(prefix)ClampingRangeUpperBound", Self.number(upper)) }
            }
            try end()
        }
        try end()
    }

    /// A `VisionPrescription`: glasses or contacts, dates, brand and each eye's lens with its
    /// units (diopters, degrees, millimetres). Apple's element has no source; the source's name is
    /// written as `sourceName` too, which the importer reads back.
    private func prescription(_ prescription: VisionPrescription, of sample: Sample) throws {
        try start("VisionPrescription")
        try attribute("type", prescription.prescriptionType == .contacts ? "HKVisionPrescriptionTypeContacts" : "HKVisionPrescriptionTypeGlasses")
        try attribute("dateIssued", date(prescription.dateIssued))
        if let expiration = prescription.expirationDate { try attribute("expirationDate", date(expiration)) }
        if let brand = prescription.brand { try attribute("brand", brand) }
        try source(sample)
        try metadata(sample.metadata)
        for (name, lens) in [("RightEye", prescription.rightEye), ("LeftEye", prescription.leftEye)] {
            guard let lens else { continue }
            try start(name)
            let fields: [(String, Double?, String)] = [
                ("sphere", lens.sphere, "D"), ("cylinder", lens.cylinder, "D"), ("axis", lens.axis, "deg"), ("add", lens.addPower, "D"),
                ("vertex", lens.vertexDistance, "mm"), ("prismAmount", lens.prism?.amount, "D"), ("prismAngle", lens.prism?.angle, "deg"),
                ("farPD", lens.farPupillaryDistance, "mm"), ("nearPD", lens.nearPupillaryDistance, "mm"),
                ("baseCurve", lens.baseCurve, "mm"), ("diameter", lens.diameter, "mm"),
            ]
            for (field, value, unit) in fields {
                guard let value else { continue }
                try attribute(field, Self.number(value))
                try attribute(field + "Unit", unit)
            }
            try end()
        }
        try end()
    }

    /// Writes one `ActivitySummary` per goal entry: the day the goals took effect, and the move
    /// (kcal), move time, exercise and stand goals. The day's figures are not written: Salus
    /// computes them from the samples.
    package func activitySummaries(_ goals: [ActivityGoals]) throws {
        for entry in goals {
            try start("ActivitySummary")
            try attribute("dateComponents", entry.from.description)
            try attribute("activeEnergyBurnedGoal", Self.number(entry.activeEnergyBurned))
            try attribute("activeEnergyBurnedUnit", "kcal")
            try attribute("appleMoveTimeGoal", Self.number(entry.appleMoveTime))
            try attribute("appleExerciseTimeGoal", Self.number(entry.appleExerciseTime))
            try attribute("appleStandHoursGoal", Self.number(entry.appleStandHours))
            try end()
        }
    }

    /// Writes a `ClinicalRecord` whose FHIR resource is the file `path` inside the export's folder
    /// (`clinical-records/Immunization-1.json`): its clinical type, the provider's identifier
    /// (the sample's sync identifier), source, FHIR release, received date and display name.
    package func clinicalRecord(_ sample: Sample, path: String) throws {
        guard case .clinicalRecord(let record) = sample.value else { return }
        try start("ClinicalRecord")
        try attribute("type", sample.type.rawValue)
        let identifier = sample.metadata[MetadataKey.syncIdentifier].flatMap { value -> String? in
            if case .string(let text) = value { return text.components(separatedBy: "|").last }
            return nil
        } ?? sample.uuid.uuidString
        try attribute("identifier", identifier)
        try attribute("sourceName", record.sourceName)
        if let url = record.sourceURL { try attribute("sourceURL", url) }
        try attribute("fhirVersion", record.fhirVersion)
        try attribute("receivedDate", date(record.receivedDate))
        try attribute("resourceFilePath", "/" + path)
        if !record.displayName.isEmpty { try attribute("displayName", record.displayName) }
        try end()
    }

    /// The path of a clinical record's FHIR file: `clinical-records/<resourceType>-<id>.json`, the
    /// sample's UUID standing in for an id the resource lacks.
    package static func clinicalRecordPath(of sample: Sample) -> String {
        guard case .clinicalRecord(let record) = sample.value else { return "clinical-records/\(sample.uuid.uuidString).json" }
        let type = record.resourceType.isEmpty ? "Resource" : record.resourceType
        let id = (record.resourceID ?? sample.uuid.uuidString).filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }
        return "clinical-records/\(type)-\(id.isEmpty ? sample.uuid.uuidString : id).json"
    }

    /// An electrocardiogram as Apple's `electrocardiograms/ecg_….csv` (`ElectrocardiogramCSV`,
    /// which reads the same layout), its recorded date in this export's time zone.
    package func electrocardiogramCSV(_ sample: Sample, voltages: [ElectrocardiogramVoltage]) -> Data {
        ElectrocardiogramCSV.data(of: sample, voltages: voltages, recordedDate: date(sample.startDate))
    }

    /// The path of an electrocardiogram's CSV: `electrocardiograms/ecg_2026-02-10_<first eight
    /// digits of its UUID>.csv`.
    package func electrocardiogramPath(of sample: Sample) -> String {
        "electrocardiograms/ecg_\(pathDates.day.string(from: sample.startDate))_\(sample.uuid.uuidString.lowercased()).csv"
    }

    /// The path of a route's GPX file inside the export's folder, as Apple names them:
    /// `workout-routes/route_2019-06-11_3.00pm.gpx`, from the route's start in `timeZone`, with
    /// the route's whole UUID added so that two routes in one minute differ. (Its first eight
    /// digits are not enough: UUIDv7 begins with the time it was assigned, so samples saved in
    /// the same minute, an import's above all, share them.)
    package func routePath(of route: Sample) -> String {
        let stamp = pathDates.minute.string(from: route.startDate).lowercased()
        return "workout-routes/route_\(stamp)_\(route.uuid.uuidString.lowercased()).gpx"
    }

    /// The date forms of side files' names, in the export's time zone: `2019-06-11` and
    /// `2019-06-11_3.00PM`; made once per export.
    private lazy var pathDates: (day: DateFormatter, minute: DateFormatter) = {
        func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = format
            return formatter
        }
        return (formatter("yyyy-MM-dd"), formatter("yyyy-MM-dd_h.mma"))
    }()

    /// Ends the document and closes the file.
    package func finish() throws {
        try check(xmlTextWriterEndDocument(writer))
        try check(xmlTextWriterFlush(writer))
        xmlFreeTextWriter(writer)
        writer = nil
    }

    // MARK: Elements

    private func record(_ sample: Sample) throws {
        try start("Record")
        try attribute("type", sample.type.rawValue)
        try source(sample)
        switch sample.value {
        case .quantity(let quantity):
            try attribute("unit", quantity.unit.description)
            try dates(sample)
            try attribute("value", Self.number(Self.appleValue(quantity)))
        case .category(let raw):
            try dates(sample)
            try attribute("value", names.categoryValue(raw, of: sample.type.rawValue))
        default:
            try dates(sample)
        }
        try metadata(sample.metadata)
        try end()
    }

    private func workout(_ workout: Workout, of sample: Sample) throws {
        try start("Workout")
        try attribute("workoutActivityType", names.activityType(workout.activityType))
        // Apple's own figure when the workout kept one (pauses as Apple counts them).
        try attribute("duration", Self.number((workout.recordedDuration ?? sample.endDate.timeIntervalSince(sample.startDate)) / 60))
        try attribute("durationUnit", "min")
        try source(sample)
        try dates(sample)
        try metadata(sample.metadata)
        for event in workout.events {
            try start("WorkoutEvent")
            let name = WorkoutEventType(rawValue: event.type).map { String(describing: $0) } ?? String(event.type)
            try attribute("type", "HKWorkoutEventType" + ExportNames.capitalized(name))
            try attribute("date", date(event.startDate))
            // Seconds, so the end comes back exactly; Apple writes minutes, and readers take the unit given.
            try attribute("duration", Self.number(event.endDate.timeIntervalSince(event.startDate)))
            try attribute("durationUnit", "s")
            try metadata(event.metadata)
            try end()
        }
        for activity in workout.activities {
            try start("WorkoutActivity")
            try attribute("uuid", activity.uuid.uuidString)
            try attribute("startDate", date(activity.startDate))
            if let endDate = activity.endDate {
                try attribute("endDate", date(endDate))
                try attribute("duration", Self.number(endDate.timeIntervalSince(activity.startDate) / 60))
                try attribute("durationUnit", "min")
            }
            try metadata(activity.metadata)
            try statistics(activity.allStatistics, totals: activity.statistics, from: activity.startDate, to: activity.endDate ?? sample.endDate)
            try end()
        }
        try statistics(workout.allStatistics, totals: workout.statistics, from: sample.startDate, to: sample.endDate)
        // Each route as Apple writes it: its source and dates, metadata with its sync identifier,
        // and a reference to its GPX file; the file itself is written beside export.xml.
        for (route, path) in routes[sample.uuid] ?? [] {
            try start("WorkoutRoute")
            try source(route)
            try dates(route)
            try metadata(Self.identified(route))
            try start("FileReference")
            try attribute("path", "/" + path)
            try end()
            try end()
        }
        try end()
    }

    /// A route's metadata with a sync identifier: its own, else one naming it by its UUID
    /// (`salus:route|<uuid>`). The importer keeps the identifier written, so the route comes back
    /// as the one it was; without it, the importer would name the route by its locations, which
    /// GPX's text changes (`-0.0` is written `0`, nine decimals are kept), and two routes of one
    /// path run twice would be one.
    static func identified(_ route: Sample) -> [String: MetadataValue] {
        var metadata = route.metadata
        guard metadata[MetadataKey.syncIdentifier] == nil else { return metadata }
        metadata[MetadataKey.syncIdentifier] = .string("salus:route|" + route.uuid.uuidString.lowercased())
        metadata[MetadataKey.syncVersion] = .number(1)
        return metadata
    }

    /// `WorkoutStatistics` elements: every statistic served, and the totals kept for types with
    /// no samples of their own (an imported workout's): a sum for cumulative types, an average
    /// for discrete ones.
    private func statistics(
        _ served: [TypeIdentifier: WorkoutStatistics], totals: [TypeIdentifier: Quantity], from start: Date, to end: Date
    ) throws {
        var all = served
        for (type, total) in totals where all[type] == nil {
            all[type] = names.cumulative.contains(type.rawValue) ? WorkoutStatistics(sum: total) : WorkoutStatistics(average: total)
        }
        for (type, statistics) in all.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let unit = (statistics.sum ?? statistics.average ?? statistics.minimum ?? statistics.maximum)?.unit else { continue }
            try self.start("WorkoutStatistics")
            try attribute("type", type.rawValue)
            try attribute("startDate", date(start))
            try attribute("endDate", date(end))
            let values = [("average", statistics.average), ("minimum", statistics.minimum), ("maximum", statistics.maximum), ("sum", statistics.sum)]
            for (name, quantity) in values {
                if let converted = quantity.flatMap({ try? $0.converted(to: unit) }) {
                    try attribute(name, Self.number(Self.appleValue(converted)))
                }
            }
            try attribute("unit", unit.description)
            try self.end()
        }
    }

    private func source(_ sample: Sample) throws {
        let revision = sample.sourceRevision
        try attribute("sourceName", revision.name.isEmpty ? revision.appID : revision.name)
        if let version = revision.version, !version.isEmpty { try attribute("sourceVersion", version) }
        if let device = sample.device, let text = Self.device(device) { try attribute("device", text) }
    }

    private func dates(_ sample: Sample) throws {
        try attribute("creationDate", date(sample.creationDate))
        try attribute("startDate", date(sample.startDate))
        try attribute("endDate", date(sample.endDate))
    }

    private func metadata(_ metadata: [String: MetadataValue]) throws {
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            try start("MetadataEntry")
            try attribute("key", key)
            try attribute("value", metadataText(value))
            try end()
        }
    }

    /// A metadata value as exports write it.
    func metadataText(_ value: MetadataValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): Self.number(number)
        case .bool(let flag): flag ? "1" : "0"
        case .date(let moment): date(moment)
        case .quantity(let quantity): Self.number(Self.appleValue(quantity)) + " " + quantity.unit.description
        }
    }

    /// The number Apple writes for `quantity`: HealthKit's `%` is a fraction (an oxygen
    /// saturation of 97 % is written `0.97` with unit `%`), so a percentage is divided by 100;
    /// every other unit is written as it is.
    package static func appleValue(_ quantity: Quantity) -> Double {
        quantity.unit == .percent ? quantity.value / 100 : quantity.value
    }

    // MARK: Text forms

    /// HealthKit's device description, with the fields that are set
    /// (`<<HKDevice: 0x0>, name:Apple Watch, manufacturer:Apple Inc., …>`).
    static func device(_ device: Device) -> String? {
        let fields: [(String, String?)] = [
            ("name", device.name), ("manufacturer", device.manufacturer), ("model", device.model),
            ("hardware", device.hardwareVersion), ("firmware", device.firmwareVersion), ("software", device.softwareVersion),
            ("localIdentifier", device.localIdentifier), ("UDIDeviceIdentifier", device.udiDeviceIdentifier),
        ]
        let present = fields.compactMap { name, value in value.map { "\(name):\($0)" } }
        guard !present.isEmpty else { return nil }
        return "<<HKDevice: 0x0>, " + present.joined(separator: ", ") + ">"
    }

    /// A number as exports write it: integers without a fraction, others in the shortest form
    /// that reads back to the same value.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `2024-05-01 08:00:00 +0100`: `moment` in the writer's time zone, whole seconds.
    func date(_ moment: Date) -> String {
        let seconds = Int(moment.timeIntervalSince1970.rounded(.down))
        let offset = timeZone.secondsFromGMT(for: moment)
        let local = seconds + offset
        var days = local / 86_400
        var rest = local % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        let year4 = year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(year4)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)) \(sign)\(two(magnitude / 60))\(two(magnitude % 60))"
    }

    // MARK: libxml2

    private func start(_ name: String) throws {
        try check(xmlTextWriterStartElement(writer, name))
    }

    private func end() throws {
        try check(xmlTextWriterEndElement(writer))
    }

    private func attribute(_ name: String, _ value: String) throws {
        try check(xmlTextWriterWriteAttribute(writer, name, value))
    }

    private func check(_ result: Int32) throws {
        guard writer != nil else { throw AppleHealthWriteError(description: "\(path): already finished") }
        if result < 0 { throw AppleHealthWriteError(description: "\(path): cannot be written (disk full or closed)") }
    }
}
