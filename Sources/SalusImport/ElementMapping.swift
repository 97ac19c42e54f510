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
            var member = try record(child).sample
            member.metadata = Self.withImportIdentifier(member.metadata, of: child)
            members.append(member)
        }
        var metadata: [String: MetadataValue] = [:]
        for entry in element.children(named: "MetadataEntry") {
            guard let key = entry["key"], !key.isEmpty else { continue }
            metadata[key] = try metadataValue(entry["value"] ?? "", key: key, rules: rules, line: entry.line)
        }
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        let sample = Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: .correlation(Correlation(objects: members)),
            sourceRevision: SourceRevision(appID: "", name: element["sourceName"] ?? element["source"] ?? "", version: element["sourceVersion"]),
            device: element["device"].flatMap(Self.device), metadata: metadata,
            creationDate: element["creationDate"].flatMap(Self.date) ?? start)
        var identified = sample
        identified.metadata = Self.withImportIdentifier(metadata, of: element)
        return identified
    }

    /// `metadata` with a sync identifier and version that name the element by its content, so
    /// that importing the same export twice, or a record the export repeats, saves it once.
    /// A record that carries its own sync identifier keeps it.
    package static func withImportIdentifier(_ metadata: [String: MetadataValue], of element: ExportElement) -> [String: MetadataValue] {
        guard metadata[MetadataKey.syncIdentifier] == nil, metadata[MetadataKey.syncVersion] == nil else { return metadata }
        var parts = [element["startDate"] ?? "", element["endDate"] ?? "", (element["value"] ?? "") + (element["unit"] ?? "")]
        for child in element.children(named: "Record") {
            parts.append((child["type"] ?? "") + "=" + (child["value"] ?? "") + (child["unit"] ?? ""))
        }
        var result = metadata
        result[MetadataKey.syncIdentifier] = .string("applehealth:" + parts.joined(separator: "|"))
        result[MetadataKey.syncVersion] = .number(1)
        return result
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
            let lowered = attribute.value.lowercased()
            let named = rules.cases.filter { lowered.hasSuffix($0.name.lowercased()) }.max { $0.name.count < $1.name.count }
            guard let named else {
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
    /// when it names no day or no goal.
    package static func activityGoals(_ element: ExportElement, previous: ActivityGoals?) -> ActivityGoals? {
        guard let day = element["dateComponents"].flatMap(CalendarDate.init) else { return nil }
        let base = previous ?? .defaults
        func number(_ name: String) -> Double? { element[name].flatMap(Double.init).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        var energy = number("activeEnergyBurnedGoal")
        if let value = energy, let unitText = element["activeEnergyBurnedUnit"], let unit = try? unit(unitText),
           let kcal = try? Quantity(value: value, unit: unit).converted(to: .kilocalorie) {
            energy = kcal.value
        }
        let move = number("appleMoveTimeGoal")
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
