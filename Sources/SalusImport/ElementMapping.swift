import Foundation
import SalusModel

extension RecordMapper {
    /// The sample of a `Correlation` element (blood pressure, food) with its `Record` children as
    /// members. The members are the same records the export also lists at top level; the
    /// importer's sync identifiers make each one count once.
    package func correlation(_ element: ExportElement) throws(ImportRefusal) -> Sample {
        let line = element.line
        guard let typeName = element["type"], let rules = catalog.rules(for: typeName), rules.kind == .correlation else {
            throw ImportRefusal(
                line: line, field: "type", value: element["type"] ?? "", expected: "a correlation type a loaded plugin registers")
        }
        var members: [Sample] = []
        for child in element.children(named: "Record") {
            members.append(try record(child).sample)
        }
        let metadata = try metadata(of: element, rules: rules)
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        let sample = Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: .correlation(Correlation(objects: members)),
            sourceRevision: SourceRevision(appID: "", name: element["sourceName"] ?? element["source"] ?? "", version: element["sourceVersion"]),
            device: element["device"].flatMap(Self.device), metadata: metadata,
            creationDate: element["creationDate"].flatMap(Self.date) ?? start)
        // The members and the correlation are each named by their content (`ImportIdentity`).
        return ImportIdentity.identified(sample)
    }

    /// The characteristics of `<Me>`: each attribute naming a registered characteristic type,
    /// its value a case name as exports write it (`HKBloodTypeANegative`) or a date
    /// (`1990-05-20`); "not set" values are left out.
    package func characteristics(_ element: ExportElement) -> (values: [Characteristic], problems: [ImportRefusal]) {
        var values: [Characteristic] = []
        var problems: [ImportRefusal] = []
        for attribute in element.attributes {
            guard let rules = catalog.rules(for: attribute.name), rules.kind == .characteristic else { continue }
            if rules.isDateCharacteristic {
                guard !attribute.value.isEmpty else { continue }
                guard let date = CalendarDate(attribute.value) else {
                    problems.append(ImportRefusal(line: element.line, field: attribute.name, value: attribute.value, expected: "a date YYYY-MM-DD"))
                    continue
                }
                values.append(Characteristic(type: TypeIdentifier(rules.identifier), value: .date(date)))
                continue
            }
            guard let named = Self.caseNamed(attribute.value, in: rules.cases) else {
                problems.append(ImportRefusal(
                    line: element.line, field: attribute.name, value: attribute.value,
                    expected: "one of " + rules.cases.map(\.name).joined(separator: ", ")))
                continue
            }
            if named.name == "notSet" { continue }
            values.append(Characteristic(type: TypeIdentifier(rules.identifier), value: .enumeration(named.rawValue)))
        }
        return (values, problems)
    }

    /// The goals of an `ActivitySummary` element (its day, and the move, exercise and stand goals
    /// in kcal, minutes and hours; a goal missing from the element keeps `previous`'s), or nil
    /// when it names no day or no goal. A move goal of 0 stays 0: it is HealthKit's "not set"
    /// for the move mode the person does not use (`appleMoveTimeGoal="0"` when the move ring
    /// counts kilocalories), not a goal missing.
    package static func activityGoals(_ element: ExportElement, previous: ActivityGoals?) -> ActivityGoals? {
        guard let day = element["dateComponents"].flatMap(CalendarDate.init) else { return nil }
        let base = previous ?? .defaults
        func number(_ name: String, zeroAllowed: Bool = false) -> Double? {
            element[name].flatMap(Double.init).flatMap { ($0 > 0 || (zeroAllowed && $0 == 0)) && $0.isFinite ? $0 : nil }
        }
        var energy = number("activeEnergyBurnedGoal", zeroAllowed: true)
        if let value = energy, let unitText = element["activeEnergyBurnedUnit"], let unit = try? unit(unitText),
           let kcal = try? Quantity(value: value, unit: unit).converted(to: .kilocalorie) {
            energy = kcal.value
        }
        let move = number("appleMoveTimeGoal", zeroAllowed: true)
        let exercise = number("appleExerciseTimeGoal")
        let stand = number("appleStandHoursGoal").map { min($0, 24) }
        guard energy != nil || move != nil || exercise != nil || stand != nil else { return nil }
        return ActivityGoals(
            from: day, activeEnergyBurned: energy ?? base.activeEnergyBurned, appleMoveTime: move ?? base.appleMoveTime,
            appleExerciseTime: exercise ?? base.appleExerciseTime, appleStandHours: stand ?? base.appleStandHours)
    }

    /// The app id a source of the export is saved under: `applehealth.` and its name in lower
    /// case, letters and digits kept, apostrophes dropped, everything else one hyphen
    /// ("Alexandre's Apple Watch" → `applehealth.alexandres-apple-watch`).
    package static func appID(forSource name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var slug = ""
        var lastWasHyphen = true
        for scalar in folded.unicodeScalars {
            if scalar == "'" || scalar == "\u{2019}" || scalar == "\u{2018}" { continue }
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                slug.unicodeScalars.append(scalar)
                lastWasHyphen = false
            } else if !lastWasHyphen {
                slug += "-"
                lastWasHyphen = true
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return "applehealth." + (slug.isEmpty ? "unnamed" : slug)
    }
}

extension RecordMapper {
    /// The heartbeat series behind a heart-rate-variability record: exports list the beats of the
    /// measurement as `HeartRateVariabilityMetadataList/InstantaneousBeatsPerMinute(bpm, time)`,
    /// where `time` is a wall-clock time in the device's locale (`00:20:37,80` or
    /// `7:47:41.86 PM`) on the clock of the place and season the beats were taken, while the
    /// record's dates carry the UTC offset the phone had *at export time*. The two clocks differ
    /// by a whole number of quarter hours (a record taken in winter and exported in summer: an
    /// hour), and a series may cross midnight. Each beat is read as seconds from the record's
    /// start on its own clock, shifted by the one difference of the two clocks (a multiple of
    /// 15 minutes, the smallest that fits) that puts every beat inside the record's interval
    /// (a second of slack at each end: the dates are whole seconds). Nil when the record has no
    /// list; a refusal when a time cannot be read or no shift fits.
    package func heartbeatSeries(_ element: ExportElement, record: Sample) throws(ImportRefusal) -> Sample? {
        guard let list = element.children(named: "HeartRateVariabilityMetadataList").first else { return nil }
        let entries = list.children(named: "InstantaneousBeatsPerMinute")
        guard !entries.isEmpty else { return nil }
        guard let startText = element["startDate"], let offset = Self.utcOffset(startText) else {
            throw ImportRefusal(line: element.line, field: "startDate", value: element["startDate"] ?? "", expected: "a date with a UTC offset")
        }
        // Seconds since local midnight of the start, on the export's clock.
        let localStart = record.startDate.timeIntervalSince1970 + Double(offset)
        let startOfDay = (localStart / 86_400).rounded(.down) * 86_400
        let startSeconds = localStart - startOfDay
        // Each beat's clock time less the start's, in -12 h ..< 12 h.
        var differences: [Double] = []
        for entry in entries {
            guard let text = entry["time"], let seconds = Self.timeOfDay(text) else {
                throw ImportRefusal(
                    line: entry.line, field: "InstantaneousBeatsPerMinute.time", value: entry["time"] ?? "",
                    expected: "a time of day such as 00:20:37,80 or 7:47:41.86 PM")
            }
            differences.append(Self.withinHalfADay(seconds - startSeconds))
        }
        let span = record.endDate.timeIntervalSince(record.startDate)
        func fits(_ shift: Double) -> Bool {
            differences.allSatisfy { (-1...(span + 1)).contains(Self.withinHalfADay($0 - shift)) }
        }
        // The shift of the two clocks: 0 when it fits, else the nearest quarter hour that does.
        var quarters: [Double] = [0]
        for quarter in 1...48 { quarters += [Double(quarter) * 900, Double(-quarter) * 900] }
        guard let shift = quarters.first(where: fits) else {
            let first = entries.first?["time"] ?? ""
            throw ImportRefusal(
                line: entries.first?.line ?? element.line, field: "InstantaneousBeatsPerMinute.time", value: first,
                expected: "beat times that fall inside the record's interval \(startText) – \(element["endDate"] ?? "") "
                    + "on the clock of some UTC offset")
        }
        var beats = differences.map { Heartbeat(timeSinceSeriesStart: min(max(0, Self.withinHalfADay($0 - shift)), span)) }
        beats.sort { $0.timeSinceSeriesStart < $1.timeSinceSeriesStart }
        return ImportIdentity.identified(Sample(
            type: TypeIdentifier("HKDataTypeIdentifierHeartbeatSeries"), startDate: record.startDate, endDate: record.endDate,
            value: .heartbeatSeries(HeartbeatSeries(beats: beats)), sourceRevision: record.sourceRevision,
            device: record.device, metadata: [:], creationDate: record.creationDate))
    }

    /// `seconds` moved by whole days into -12 h ..< 12 h.
    static func withinHalfADay(_ seconds: Double) -> Double {
        let day = 86_400.0
        let wrapped = (seconds + day / 2).truncatingRemainder(dividingBy: day)
        return (wrapped < 0 ? wrapped + day : wrapped) - day / 2
    }

    /// The UTC offset in seconds of an export date (`… +0200`).
    static func utcOffset(_ text: String) -> Int? {
        if text.hasSuffix("Z") { return 0 }
        guard let signIndex = text.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let digits = text[text.index(after: signIndex)...].filter(\.isNumber)
        guard digits.count == 4, let value = Int(digits) else { return nil }
        return (text[signIndex] == "-" ? -1 : 1) * ((value / 100) * 3600 + (value % 100) * 60)
    }

    /// Seconds since midnight of `00:20:37,80`, `19:47:41.86` or `7:47:41.86 PM`.
    static func timeOfDay(_ text: String) -> Double? {
        var body = text.trimmingCharacters(in: .whitespaces)
        var meridiem: String?
        for suffix in ["AM", "PM", "am", "pm"] where body.hasSuffix(suffix) {
            meridiem = suffix.uppercased()
            body = String(body.dropLast(2)).trimmingCharacters(in: .whitespaces)
        }
        let parts = body.replacingOccurrences(of: ",", with: ".").split(separator: ":")
        // Each part in its range before any arithmetic: a minute of -2^63 would overflow.
        guard parts.count == 3, var hour = Int(parts[0]), let minute = Int(parts[1]), let second = Double(parts[2]),
              hour >= 0, (0..<60).contains(minute), second >= 0, second < 61
        else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "PM" ? 12 : 0)
        }
        guard hour < 24 else { return nil }
        return Double(hour * 3600 + minute * 60) + second
    }
}

extension RecordMapper {
    /// The activity type of a `WorkoutActivity`, which exports do not write. An activity of
    /// any workout but a swimBikeRun (82) has the workout's type (the workout rules require
    /// it). A swimBikeRun leg is told by the distance it measured: swimming (46) for
    /// `DistanceSwimming`, cycling (13) for `DistanceCycling`, running (37) for
    /// `DistanceWalkingRunning`, and a leg with no distance is a transition (83).
    static func legType(of node: ExportElement, statistics: [TypeIdentifier: Quantity], workoutType: Int) -> Int {
        guard workoutType == 82 else { return workoutType }
        if statistics["HKQuantityTypeIdentifierDistanceSwimming"] != nil { return 46 }
        if statistics["HKQuantityTypeIdentifierDistanceCycling"] != nil { return 13 }
        if statistics["HKQuantityTypeIdentifierDistanceWalkingRunning"] != nil { return 37 }
        return 83
    }

    /// The type of a workout's `totalEnergyBurned` (HealthKit's `HKWorkout.totalEnergyBurned`
    /// is active energy).
    static let energyType = TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")

    /// The distance type of a workout's `totalDistance`, by the activity type's name (`running`),
    /// as HealthKit files a workout's distance; walking and running distance, the general one,
    /// for activities without a distance type of their own (exports do not say which).
    static func distanceType(of activity: String) -> TypeIdentifier {
        let kinds: [String: String] = [
            "running": "WalkingRunning", "walking": "WalkingRunning", "hiking": "WalkingRunning",
            "cycling": "Cycling", "handCycling": "Cycling", "swimming": "Swimming",
            "wheelchairWalkPace": "Wheelchair", "wheelchairRunPace": "Wheelchair",
            "downhillSkiing": "DownhillSnowSports", "snowboarding": "DownhillSnowSports", "snowSports": "DownhillSnowSports",
            "crossCountrySkiing": "CrossCountrySkiing", "rowing": "Rowing", "paddleSports": "PaddleSports",
            "skatingSports": "SkatingSports",
        ]
        return TypeIdentifier("HKQuantityTypeIdentifierDistance" + (kinds[activity] ?? "WalkingRunning"))
    }

    /// HKWorkoutEventType names as exports write them (`HKWorkoutEventTypePause`).
    static let workoutEventTypes: [String: Int] = [
        "pause": 1, "resume": 2, "lap": 3, "marker": 4, "motionpaused": 5, "motionresumed": 6, "segment": 7,
        "pauseorresumerequest": 8,
    ]

    /// The workout of a `Workout` element: its activity type by name
    /// (`HKWorkoutActivityTypeRunning`), its events (`WorkoutEvent` with a date and a duration,
    /// at workout level or inside an activity), its activities (`WorkoutActivity`, iOS 16, with
    /// their own `WorkoutStatistics` and metadata; see `legType` for their type), its totals
    /// (`WorkoutStatistics`, or before iOS 16 `totalDistance` and `totalEnergyBurned`) and
    /// metadata; one activity spanning the workout when it lists none. Its routes are
    /// `routes(of:)`'s.
    package func workout(_ element: ExportElement) throws(ImportRefusal) -> Sample {
        try workoutKeepingWhole(element).sample
    }

    /// `workout(_:)` with what it changed to keep the workout whole. Apple's own files break rules
    /// Salus holds apps to (watchOS 10 and later write an event ending half a second after its
    /// workout), so one bad child never costs the workout: a metadata entry that cannot be read,
    /// or an event of an unknown type, is dropped; an event or activity reaching past the
    /// workout's interval is clamped to it, and one wholly outside it dropped. Each change is
    /// returned with the child's line, field and value, and what was done in `expected`. Only what
    /// makes the workout itself (its type, dates) is a refusal.
    package func workoutKeepingWhole(_ element: ExportElement) throws(ImportRefusal) -> (sample: Sample, changes: [ImportRefusal]) {
        let line = element.line
        var changes: [ImportRefusal] = []
        guard let rules = catalog.rules(for: "HKWorkoutTypeIdentifier") else {
            throw ImportRefusal(line: line, field: "Workout", value: "", expected: "the workout type registered by a plugin")
        }
        let typeName = element["workoutActivityType"] ?? ""
        var short = typeName.hasPrefix("HKWorkoutActivityType") ? String(typeName.dropFirst("HKWorkoutActivityType".count)) : typeName
        short = short.prefix(1).lowercased() + short.dropFirst()
        guard let activity = catalog.workoutActivityType(named: short) else {
            throw ImportRefusal(line: line, field: "workoutActivityType", value: typeName, expected: "a HealthKit workout activity type")
        }
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        func duration(_ node: ExportElement) -> TimeInterval? {
            guard let value = node["duration"].flatMap(Double.init) else { return nil }
            let unit = node["durationUnit"].flatMap { try? Self.unit($0) } ?? .minute
            return (try? Quantity(value: value, unit: unit).converted(to: .second))?.value
        }
        // Real exports may write a workout's whole metadata block twice: a key read again keeps
        // its one value.
        func readMetadata(of node: ExportElement) -> [String: MetadataValue] {
            var metadata: [String: MetadataValue] = [:]
            for entry in node.children(named: "MetadataEntry") {
                guard let key = entry["key"], !key.isEmpty else { continue }
                do {
                    metadata[key] = try metadataValue(entry["value"] ?? "", key: key, rules: rules, line: entry.line)
                } catch {
                    changes.append(ImportRefusal(
                        line: error.line, field: "\(node.name).\(error.field)", value: error.value,
                        expected: "\(error.expected); the entry is dropped, the workout kept"))
                }
            }
            return metadata
        }
        /// The events of `node`, each with its line.
        func readEvents(of node: ExportElement) -> [(event: WorkoutEvent, line: Int, written: String)] {
            var events: [(event: WorkoutEvent, line: Int, written: String)] = []
            for child in node.children(named: "WorkoutEvent") {
                let name = (child["type"] ?? "").replacingOccurrences(of: "HKWorkoutEventType", with: "").lowercased()
                guard let type = Self.workoutEventTypes[name] else {
                    changes.append(ImportRefusal(
                        line: child.line, field: "WorkoutEvent.type", value: child["type"] ?? "",
                        expected: "a HealthKit workout event type; the event is dropped, the workout kept"))
                    continue
                }
                guard let at = child["date"].flatMap(Self.date) else {
                    changes.append(ImportRefusal(
                        line: child.line, field: "WorkoutEvent.date", value: child["date"] ?? "",
                        expected: "a date such as 2024-01-01 01:01:36 +0200; the event is dropped, the workout kept"))
                    continue
                }
                events.append((
                    WorkoutEvent(type: type, startDate: at, endDate: at.addingTimeInterval(duration(child) ?? 0), metadata: readMetadata(of: child)),
                    child.line, "date=\(child["date"] ?? "") duration=\(child["duration"] ?? "") \(child["durationUnit"] ?? "")"))
            }
            return events
        }
        /// The `WorkoutStatistics` children: every figure each gives (sum, average, minimum,
        /// maximum), and the main one (the sum, else the average) per type.
        func readTotals(of node: ExportElement) -> (main: [TypeIdentifier: Quantity], all: [TypeIdentifier: WorkoutStatistics]) {
            var main: [TypeIdentifier: Quantity] = [:]
            var all: [TypeIdentifier: WorkoutStatistics] = [:]
            for child in node.children(named: "WorkoutStatistics") {
                guard let type = child["type"], catalog.rules(for: type)?.kind == .quantity, let unitText = child["unit"],
                      let unit = try? Self.unit(unitText)
                else { continue }
                func figure(_ name: String) -> Quantity? {
                    child[name].flatMap(Double.init).flatMap { $0.isFinite ? Self.quantity($0, unit) : nil }
                }
                let figures = WorkoutStatistics(sum: figure("sum"), average: figure("average"), minimum: figure("minimum"), maximum: figure("maximum"))
                guard figures != WorkoutStatistics() else { continue }
                all[TypeIdentifier(type)] = figures
                if let figure = figures.main { main[TypeIdentifier(type)] = figure }
            }
            return (main, all)
        }
        // Events are the workout's; iOS 16+ exports may list an activity's inside it as well.
        var events = readEvents(of: element)
        var activities: [WorkoutActivity] = []
        for node in element.children(named: "WorkoutActivity") {
            var from = try date(node, "startDate")
            var to = node["endDate"] == nil ? from.addingTimeInterval(duration(node) ?? 0) : try date(node, "endDate")
            if from < start, to >= start {
                changes.append(ImportRefusal(
                    line: node.line, field: "WorkoutActivity.startDate", value: node["startDate"] ?? "",
                    expected: "at least the workout's start \(element["startDate"] ?? ""); clamped to it, the workout kept"))
                from = start
            }
            for event in readEvents(of: node) where !events.contains(where: { $0.event == event.event }) { events.append(event) }
            let figures = readTotals(of: node)
            if to > end, from <= end {
                changes.append(ImportRefusal(
                    line: node.line, field: "WorkoutActivity.endDate", value: node["endDate"] ?? "",
                    expected: "at most the workout's end \(element["endDate"] ?? ""); clamped to it, the workout kept"))
                to = end
            }
            var leg = WorkoutActivity(
                uuid: node["uuid"].flatMap(UUID.init(uuidString:)) ?? UUID(),
                activityType: UInt(Self.legType(of: node, statistics: figures.main, workoutType: Int(activity.rawValue))),
                startDate: from, endDate: to, metadata: readMetadata(of: node), statistics: figures.main)
            leg.allStatistics = figures.all
            activities.append(leg)
        }
        // An event reaching past the workout is clamped to it; one wholly outside is dropped.
        var kept: [WorkoutEvent] = []
        for (event, eventLine, written) in events {
            if event.startDate >= start, event.endDate <= end {
                kept.append(event)
                continue
            }
            guard event.startDate <= end, event.endDate >= start else {
                changes.append(ImportRefusal(
                    line: eventLine, field: "WorkoutEvent.date", value: written,
                    expected: "within the workout \(element["startDate"] ?? "") – \(element["endDate"] ?? ""); the event is dropped, the workout kept"))
                continue
            }
            var clamped = event
            clamped.startDate = max(event.startDate, start)
            clamped.endDate = min(event.endDate, end)
            changes.append(ImportRefusal(
                line: eventLine, field: event.endDate > end ? "WorkoutEvent.duration" : "WorkoutEvent.date", value: written,
                expected: "within the workout \(element["startDate"] ?? "") – \(element["endDate"] ?? ""); clamped to it, the workout kept"))
            kept.append(clamped)
        }
        var (statistics, allStatistics) = readTotals(of: element)
        // Before iOS 16 the totals are attributes of the workout; a statistic of the same type
        // is preferred, and an attribute that says otherwise is reported.
        for (attribute, type) in [("totalEnergyBurned", Self.energyType), ("totalDistance", Self.distanceType(of: short))] {
            guard let text = element[attribute] else { continue }
            let unitText = element[attribute + "Unit"] ?? ""
            let written = "\(text) \(unitText)"
            guard let number = Double(text), number.isFinite, let unit = try? Self.unit(unitText) else {
                changes.append(ImportRefusal(
                    line: line, field: attribute, value: written,
                    expected: "a number and the unit of \(attribute)Unit, such as 5.2 km; dropped, the workout kept"))
                continue
            }
            let total = Self.quantity(number, unit)
            guard catalog.rules(for: type.rawValue)?.kind == .quantity else {
                changes.append(ImportRefusal(
                    line: line, field: attribute, value: written,
                    expected: "a total of a type a loaded plugin registers (\(type) is not); dropped, the workout kept"))
                continue
            }
            if let given = statistics[type] {
                if let converted = try? total.converted(to: given.unit), abs(converted.value - given.value) > 0.005 * abs(given.value) + 1e-9 {
                    changes.append(ImportRefusal(
                        line: line, field: attribute, value: written,
                        expected: "the total of its WorkoutStatistics of \(type), \(AppleHealthWriter.number(given.value)) \(given.unit), "
                            + "which is kept; the attribute differs"))
                }
                continue
            }
            statistics[type] = total
            allStatistics[type] = WorkoutStatistics(sum: total)
        }
        let metadata = readMetadata(of: element)
        // A workout without activities gets its spanning one from the save step, as every save.
        var workout = Workout(activityType: UInt(activity.rawValue), events: kept, activities: activities, statistics: statistics)
        workout.allStatistics = allStatistics
        // Apple's own figure of the time the workout ran (pauses as Apple counts them). The
        // dates are whole seconds and the duration keeps its fraction, so it may pass the
        // interval by less than a second.
        if let given = duration(element) {
            let interval = end.timeIntervalSince(start)
            if given.isFinite, given >= 0, given <= interval + Workout.recordedDurationSlack {
                workout.recordedDuration = given
            } else {
                changes.append(ImportRefusal(
                    line: line, field: "duration", value: "\(element["duration"] ?? "") \(element["durationUnit"] ?? "")",
                    expected: "at most the workout's \(AppleHealthWriter.number(interval)) s from start to end; "
                        + "dropped, the duration of its dates and events kept"))
            }
        }
        let sample = ImportIdentity.identified(Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: .workout(workout),
            sourceRevision: SourceRevision(appID: "", name: element["sourceName"] ?? element["source"] ?? "", version: element["sourceVersion"]),
            device: element["device"].flatMap(Self.device), metadata: metadata,
            creationDate: element["creationDate"].flatMap(Self.date) ?? start))
        return (sample, changes)
    }
}
