import Foundation
import SalusModel

/// A record of an export that cannot become a sample, with why: the importer reports these
/// (counted, the first ones with their line) and goes on; nothing is dropped silently.
package struct ImportRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The export's line.
    package var line: Int
    /// The attribute or child at fault (`type`, `unit`, `MetadataEntry[HKTimeZone]`).
    package var field: String
    /// The value found.
    package var value: String
    /// What was expected.
    package var expected: String

    /// A refusal.
    package init(line: Int, field: String, value: String, expected: String) {
        self.line = line
        self.field = field
        self.value = value
        self.expected = expected
    }

    package var description: String { "line \(line): \(field): \"\(value)\"; expected \(expected)" }
}

/// An export's `Record` as a sample, with the source it came from (the app or device name the
/// export gives; the daemon decides which app id that becomes).
package struct ImportedRecord: Hashable, Sendable {
    /// The sample; its source revision carries the export's `sourceName` and `sourceVersion`
    /// with an empty app id.
    package var sample: Sample
}

/// Turns the elements of an export into model values, by the type rules of the running
/// catalogue. What real exports hold that tidy examples do not (shared/data/README.md):
/// - dates `YYYY-MM-DD HH:MM:SS ±ZZZZ`, and iOS 8's `20140108164300-0800`;
/// - units `mmol<180.1558800000541>/L`, `mL/min·kg` (U+00B7 for a product), `kJ`, `Cal`,
///   `km/hr`, which are parsed as HealthKit writes them;
/// - category values as enumeration case names (`HKCategoryValueSleepAnalysisAsleepCore`), or
///   missing (mindful sessions, heart-rate events: `notApplicable`);
/// - metadata values as text, typed by the key's declared type: booleans `0`/`1`, quantities
///   `"5348 cm"`, numbers; keys differing only in case are kept apart;
/// - the device as HealthKit's description string
///   (`<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2>`).
package struct RecordMapper: Sendable {
    /// The types and metadata keys of the running daemon.
    package let catalog: TypeCatalog

    /// A mapper over `catalog`.
    package init(catalog: TypeCatalog) {
        self.catalog = catalog
    }

    /// The sample of a `Record` element.
    package func record(_ element: ExportElement) throws(ImportRefusal) -> ImportedRecord {
        let line = element.line
        guard let typeName = element["type"], !typeName.isEmpty else {
            throw ImportRefusal(line: line, field: "type", value: "", expected: "a HealthKit type identifier")
        }
        guard let rules = catalog.rules(for: typeName) else {
            throw ImportRefusal(line: line, field: "type", value: typeName, expected: "a type a loaded plugin registers (salusctl types)")
        }
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        let value: SampleValue
        switch rules.kind {
        case .quantity:
            guard let text = element["value"], let number = Double(text), number.isFinite else {
                throw ImportRefusal(line: line, field: "value", value: element["value"] ?? "", expected: "a number")
            }
            let unitText = element["unit"] ?? ""
            let unit: SalusUnit
            do {
                unit = try Self.unit(unitText)
            } catch {
                throw ImportRefusal(line: line, field: "unit", value: unitText, expected: "a HealthKit unit (\(error))")
            }
            value = .quantity(Self.quantity(number, unit))
        case .category:
            value = .category(try categoryValue(element["value"], rules: rules, line: line))
        default:
            throw ImportRefusal(
                line: line, field: "type", value: typeName,
                expected: "a quantity or category type in a Record; \(typeName) is a \(rules.kind.rawValue) type")
        }
        let metadata = try metadata(of: element, rules: rules)
        // iOS 8 exports write `source=` where later ones write `sourceName=`.
        let source = SourceRevision(appID: "", name: element["sourceName"] ?? element["source"] ?? "", version: element["sourceVersion"])
        let creation = element["creationDate"].flatMap(Self.date) ?? start
        return ImportedRecord(sample: Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: value, sourceRevision: source,
            device: element["device"].flatMap(Self.device), metadata: metadata, creationDate: creation))
    }

    func date(_ element: ExportElement, _ name: String) throws(ImportRefusal) -> Date {
        guard let text = element[name], let date = Self.date(text) else {
            throw ImportRefusal(
                line: element.line, field: name, value: element[name] ?? "",
                expected: "a date such as 2024-01-01 01:01:36 +0200")
        }
        return date
    }

    /// The raw value of a category record's value: a case name as exports write it
    /// (`HKCategoryValueSleepAnalysisAsleepCore`: the longest case name it ends with), a bare
    /// number, or missing for types whose only case is notApplicable.
    func categoryValue(_ text: String?, rules: TypeRules, line: Int) throws(ImportRefusal) -> Int {
        guard let text, !text.isEmpty else {
            if let only = rules.cases.first(where: { $0.name == "notApplicable" }) { return Int(only.rawValue) }
            throw ImportRefusal(line: line, field: "value", value: "", expected: "a value of \(rules.identifier)")
        }
        if let number = Int(text) { return number }
        guard let named = Self.caseNamed(text, in: rules.cases + rules.deprecatedAliases) else {
            throw ImportRefusal(
                line: line, field: "value", value: text,
                expected: "one of " + rules.cases.map(\.name).joined(separator: ", "))
        }
        return Int(named.rawValue)
    }

    func metadataValue(_ text: String, key: String, rules: TypeRules, line: Int) throws(ImportRefusal) -> MetadataValue {
        switch catalog.metadataValueType(key, on: rules) {
        case .bool?:
            switch text.lowercased() {
            case "1", "true", "yes": return .bool(true)
            case "0", "false", "no": return .bool(false)
            default: throw ImportRefusal(line: line, field: "MetadataEntry[\(key)]", value: text, expected: "0 or 1")
            }
        case .number?:
            guard let number = Double(text) else {
                throw ImportRefusal(line: line, field: "MetadataEntry[\(key)]", value: text, expected: "a number")
            }
            return .number(number)
        case .quantity?:
            let parts = text.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let number = Double(parts[0]), let unit = try? Self.unit(String(parts[1])) else {
                throw ImportRefusal(line: line, field: "MetadataEntry[\(key)]", value: text, expected: "a number and a unit, such as 5348 cm")
            }
            return .quantity(Self.quantity(number, unit))
        case .date?:
            guard let date = Self.date(text) else {
                throw ImportRefusal(line: line, field: "MetadataEntry[\(key)]", value: text, expected: "a date")
            }
            return .date(date)
        case .string?, nil:
            return .string(text)
        }
    }

    // MARK: Text forms

    /// The case an export's enumeration name stands for: the longest case name it ends with,
    /// ignoring case (`HKCategoryValueSeverityNotPresent` is notPresent, not present;
    /// `HKBloodTypeANegative` is aNegative).
    static func caseNamed(_ text: String, in cases: [TypeRules.Case]) -> TypeRules.Case? {
        let lowered = text.lowercased()
        return cases.filter { lowered.hasSuffix($0.name.lowercased()) }.max { $0.name.count < $1.name.count }
    }

    /// The quantity an export's number and unit stand for. HealthKit's `%` is a fraction: an
    /// oxygen saturation of 97 % is written `0.97` with unit `%` (HealthKit documents percentage
    /// types' values as 0.0–1.0), while a Salus `%` is a hundredth, so the number is multiplied
    /// by 100. Every other unit is taken as it is.
    static func quantity(_ number: Double, _ unit: SalusUnit) -> Quantity {
        Quantity(value: unit == .percent ? number * 100 : number, unit: unit)
    }

    /// A unit as exports write it: `·` (U+00B7) for a product, so `mL/min·kg` is `mL/(min*kg)`;
    /// watchOS 10 and later write `HKAverageMETs` in `kcal/hr-kg`, a `-` between two unit names
    /// for the same product (`kcal/(hr*kg)`). A `-` not between letters (`m^-1`) is left alone.
    static func unit(_ text: String) throws(UnitError) -> SalusUnit {
        // An export writes a handful of unit strings over millions of records: each is parsed
        // once (Foundation's string search and the unit grammar took 4.5% of a dry run).
        if let known = UnitCache.shared.unit(for: text) { return known }
        let unit = try parsedUnit(text)
        UnitCache.shared.store(unit, for: text)
        return unit
    }

    private static func parsedUnit(_ text: String) throws(UnitError) -> SalusUnit {
        var normalized = text
        if normalized.contains("-") {
            var scalars = Array(normalized.unicodeScalars)
            for index in scalars.indices where scalars[index] == "-" && index > 0 && index + 1 < scalars.count
                && CharacterSet.letters.contains(scalars[index - 1]) && CharacterSet.letters.contains(scalars[index + 1]) {
                scalars[index] = "\u{00B7}"
            }
            normalized = String(String.UnicodeScalarView(scalars))
        }
        if normalized.unicodeScalars.contains("\u{00B7}") {
            let parts = normalized.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[1].contains("\u{00B7}") {
                normalized = parts[0] + "/(" + parts[1].replacingOccurrences(of: "\u{00B7}", with: "*") + ")"
            } else {
                normalized = normalized.replacingOccurrences(of: "\u{00B7}", with: "*")
            }
        }
        return try SalusUnit(parsing: normalized)
    }

    /// `2024-01-01 01:01:36 +0200`, or iOS 8's `20140108164300-0800`; UTC may be written `Z`
    /// (`2024-01-01 01:01:36Z`). Read byte by byte (ASCII digits, the sign of the offset): it runs once per record.
    static func date(_ text: String) -> Date? {
        var digits: [Int] = []
        digits.reserveCapacity(18)
        var sign = 0
        var digitsAfterSign = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits.append(Int(byte) - 48)
                digitsAfterSign += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                sign = byte == UInt8(ascii: "-") ? -1 : 1
                digitsAfterSign = 0
            case UInt8(ascii: "Z") where digits.count == 14:
                // UTC written as `Z`: the offset +0000.
                digits += [0, 0, 0, 0]
                sign = 1
                digitsAfterSign = 4
            default:
                break
            }
        }
        guard digits.count == 18, sign != 0, digitsAfterSign == 4 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int { digits[from..<from + count].reduce(0) { $0 * 10 + $1 } }
        let (year, month, day) = (number(0, 4), number(4, 2), number(6, 2))
        let (hour, minute, second) = (number(8, 2), number(10, 2), number(12, 2))
        let offset = sign * (number(14, 2) * 3600 + number(16, 2) * 60)
        guard CalendarDate(year: year, month: month, day: day).isValid, hour < 24, minute < 60, second < 61,
              abs(offset) <= 14 * 3600
        else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
        // days_from_civil): a Calendar per record costs more than the rest of the record.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// HealthKit's device description: `<<HKDevice: 0x…>, name:…, manufacturer:…, model:…,
    /// hardware:…, software:…>`; values may contain commas (`hardware:Watch6,7`), so each field
    /// runs to the next `, key:` of a known key.
    ///
    /// An export repeats a handful of devices over millions of records, so each description is
    /// parsed once and then found in `DeviceCache` by what follows the object's address.
    static func device(_ text: String) -> Device? {
        guard text.hasPrefix("<<HKDevice") else { return nil }
        // The body is cut by bytes: `>` is ASCII, and a search by Characters (grapheme breaking
        // over some 150 bytes a record) took most of this function's time.
        let bytes = text.utf8
        var lower = bytes.startIndex
        if let close = bytes.firstIndex(of: UInt8(ascii: ">")) { lower = bytes.index(after: close) }
        var upper = bytes.endIndex
        if upper > lower, bytes[bytes.index(before: upper)] == UInt8(ascii: ">") { upper = bytes.index(before: upper) }
        let body = text[lower..<upper]
        let key = String(body)
        if let known = DeviceCache.shared.device(for: key) { return known }
        let device = parseDevice(body)
        DeviceCache.shared.store(device, for: key)
        return device
    }

    /// The fields of a device description's body (after `<<HKDevice: 0x…>`).
    private static func parseDevice(_ body: Substring) -> Device? {
        let keys = ["name", "manufacturer", "model", "hardware", "firmware", "software", "localIdentifier", "UDIDeviceIdentifier"]
        var fields: [String: String] = [:]
        var positions: [(key: String, range: Range<Substring.Index>)] = []
        for key in keys {
            var search = body.startIndex..<body.endIndex
            while let found = body.range(of: key + ":", range: search) {
                let before = body[body.startIndex..<found.lowerBound]
                if before.hasSuffix(", ") || before.isEmpty { positions.append((key, found)) ; break }
                search = found.upperBound..<body.endIndex
            }
        }
        positions.sort { $0.range.lowerBound < $1.range.lowerBound }
        for (index, position) in positions.enumerated() {
            let end = index + 1 < positions.count ? positions[index + 1].range.lowerBound : body.endIndex
            var value = body[position.range.upperBound..<end]
            if value.hasSuffix(", ") { value = value.dropLast(2) }
            fields[position.key] = String(value)
        }
        guard !fields.isEmpty else { return nil }
        return Device(
            name: fields["name"], manufacturer: fields["manufacturer"], model: fields["model"],
            hardwareVersion: fields["hardware"], firmwareVersion: fields["firmware"], softwareVersion: fields["software"],
            localIdentifier: fields["localIdentifier"], udiDeviceIdentifier: fields["UDIDeviceIdentifier"])
    }
}

/// The export's date forms, for callers outside the mapper (tests, other elements).
package enum RecordMapperDates {
    /// `2024-01-01 01:01:36 +0200` or `20140108164300-0800`; nil when neither.
    package static func parse(_ text: String) -> Date? { RecordMapper.date(text) }
}

/// The units of the unit strings parsed so far, shared by every import (at most 1,024; a string
/// that does not parse is not kept, so its error is made again each time).
final class UnitCache: @unchecked Sendable {
    static let shared = UnitCache()
    private let lock = NSLock()
    private var units: [String: SalusUnit] = [:]

    func unit(for text: String) -> SalusUnit? {
        lock.withLock { units[text] }
    }

    func store(_ unit: SalusUnit, for text: String) {
        lock.withLock {
            if units.count < 1024 { units[text] = unit }
        }
    }
}

/// The devices of the descriptions parsed so far, shared by every import (at most 4,096: a
/// history with more distinct devices parses the rest each time).
final class DeviceCache: @unchecked Sendable {
    static let shared = DeviceCache()
    private let lock = NSLock()
    private var devices: [String: Device?] = [:]

    /// The device parsed from `key` before (`.some(nil)` for a description without one), or nil.
    func device(for key: String) -> Device?? {
        lock.withLock { devices[key] }
    }

    /// Keeps what `key` parsed to.
    func store(_ device: Device?, for key: String) {
        lock.withLock {
            if devices.count < 4096 { devices[key] = .some(device) }
        }
    }
}
