import Foundation
import SalusModel

/// A piece of SQL with its bound parameters, in order.
struct SQLFragment: Sendable {
    var sql: String
    var arguments: [SQLValue]

    static let alwaysTrue = SQLFragment(sql: "1", arguments: [])
}

/// Compiles a `SamplePredicate` for one type into a SQL boolean over the row alias `r` of
/// `samples` or `tombstones`, with every value a bound parameter.
///
/// For samples every node yields 0 or 1, never NULL, so `not` is an exact complement. For
/// tombstones a node that cannot be decided (metadata other than the sync keys, workout
/// statistics) yields NULL, SQL's three-valued logic carries it through and/or/not, and the
/// caller keeps rows where the whole expression is not 0: undecidable means "may match".
package struct PredicateCompiler {
    enum Target {
        case samples
        case tombstones
    }

    let type: TypeIdentifier
    let info: TypeRules?
    let catalog: TypeCatalog
    let target: Target

    /// The SQL for `predicate` (nil: true), or an invalid-argument error naming the node.
    func compile(_ predicate: SamplePredicate?, path: String = "predicate") throws(StoreError) -> SQLFragment {
        guard let predicate else { return .alwaysTrue }
        var arguments: [SQLValue] = []
        let sql = try compile(predicate, path: path, into: &arguments)
        return SQLFragment(sql: sql, arguments: arguments)
    }

    private func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private func compile(_ predicate: SamplePredicate, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        switch predicate {
        case .and(let list):
            if list.isEmpty { return "1" }
            var parts: [String] = []
            for (index, child) in list.enumerated() {
                parts.append(try compile(child, path: "\(path).and[\(index)]", into: &arguments))
            }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let list):
            if list.isEmpty { return "0" }
            var parts: [String] = []
            for (index, child) in list.enumerated() {
                parts.append(try compile(child, path: "\(path).or[\(index)]", into: &arguments))
            }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let child):
            return "(NOT " + (try compile(child, path: "\(path).not", into: &arguments)) + ")"
        case .dateWindow(let window):
            return try dateWindow(window, path: "\(path).dateWindow", into: &arguments)
        case .sources(let appIDs):
            if appIDs.isEmpty { return "0" }
            arguments += appIDs.sorted().map { .text($0) }
            return "(r.app_ref IN (SELECT id FROM apps WHERE app_id IN (\(placeholders(appIDs.count)))))"
        case .sourceRevisions(let matches):
            if matches.isEmpty { return "0" }
            var tests: [String] = []
            for match in matches {
                arguments.append(.text(match.appID))
                if let version = match.version {
                    arguments.append(.text(version))
                    tests.append("(app_id = ? AND version = ?)")
                } else {
                    tests.append("(app_id = ?)")
                }
            }
            return "(r.source_id IN (SELECT id FROM sources WHERE \(tests.joined(separator: " OR "))))"
        case .devices(let devices):
            if devices.isEmpty { return "0" }
            arguments += devices.map { .text(RowKeys.device($0)) }
            return "coalesce(r.device_id IN (SELECT id FROM devices WHERE key IN (\(placeholders(devices.count)))), 0)"
        case .deviceProperty(let property, let allowed):
            if allowed.isEmpty {
                return "(r.device_id IS NULL OR coalesce((SELECT d.\(property.column) IS NULL FROM devices d "
                    + "WHERE d.id = r.device_id), 1))"
            }
            arguments += allowed.sorted().map { .text($0) }
            return "coalesce(r.device_id IN (SELECT id FROM devices WHERE \(property.column) IN "
                + "(\(placeholders(allowed.count)))), 0)"
        case .uuids(let uuids):
            if uuids.isEmpty { return "0" }
            guard uuids.count <= SamplePredicate.maximumUUIDs else {
                throw StoreError.invalid(
                    "\(path).uuids", value: "\(uuids.count) UUIDs",
                    expected: "at most \(SamplePredicate.maximumUUIDs) UUIDs in one node")
            }
            let list = "(\(placeholders(uuids.count)))"
            arguments += uuids.map { SQLValue.uuid($0) }
            guard target == .samples else { return "(r.uuid IN \(list))" }
            // Found as `SampleUUIDs.match` finds one: by the row id it carries, or in the index.
            arguments += uuids.map { SQLValue.uuid($0) } + uuids.map { SQLValue.uuid($0) }
            let rows = Array(repeating: "salus_uuid_row(?)", count: uuids.count).joined(separator: ", ")
            let prefixes = Array(repeating: "substr(?, 1, 8)", count: uuids.count).joined(separator: ", ")
            return "(r.uuid IN \(list) AND (r.id IN (\(rows)) OR (substr(r.uuid, 1, 8) IN (\(prefixes)) "
                + "AND r.uuid_own IS NOT NULL)))"
        case .metadata(let key, .absent):
            let present = try metadata(key: key, test: .exists, path: "\(path).metadata", into: &arguments)
            return "(NOT \(present))"
        case .metadata(let key, let test):
            return try metadata(key: key, test: test, path: "\(path).metadata", into: &arguments)
        case .quantity(let comparison, let quantity):
            let field = "\(path).quantity"
            try requireKind(.quantity, field: field)
            guard let unit = info?.canonicalUnit else {
                throw StoreError.invalid(
                    field, value: "type \(type)", expected: "a type whose canonical unit is known to the catalog")
            }
            let value: Double
            do {
                value = try quantity.doubleValue(for: unit)
            } catch {
                throw StoreError.invalid(
                    "\(field).unit", value: "\(quantity.unit)",
                    expected: "a unit of \(unit.dimension), like \(type)'s canonical unit \(unit), not one of \(quantity.unit.dimension)")
            }
            arguments.append(.real(value))
            return "coalesce(r.value \(comparison.sql) ?, 0)"
        case .categoryValues(let values, let groups):
            let field = "\(path).categoryValues"
            try requireKind(.category, field: field)
            var all = values
            for group in groups.sorted() {
                guard let members = info?.valueGroup(named: group).map({ Set($0.map { Int($0) }) }) else {
                    let known = (info?.valueGroups.map(\.name).sorted() ?? []).map { "\"\($0)\"" }
                    throw StoreError.invalid(
                        "\(field).valueGroups", value: "\"\(group)\"",
                        expected: known.isEmpty
                            ? "no value group: \(type) declares none"
                            : "one of \(type)'s value groups: \(known.joined(separator: ", "))")
                }
                all.formUnion(members)
            }
            if all.isEmpty { return "0" }
            arguments += all.sorted().map { .integer(Int64($0)) }
            return "coalesce(r.category IN (\(placeholders(all.count))), 0)"
        case .workout(let test):
            return try workout(test, path: "\(path).workout", into: &arguments)
        case .prescription(let test):
            return try prescription(test, path: "\(path).prescription", into: &arguments)
        case .medicationConcepts(let identifiers):
            return try medicationConcepts(identifiers, path: "\(path).medicationConcepts", into: &arguments)
        }
    }

    /// Dose events or user-annotated medications of these concepts, over the JSON payload
    /// (`Payloads.MedicationDoseEventPayload.medicationConceptIdentifier`,
    /// `Payloads.UserAnnotatedMedicationPayload.conceptIdentifier`). Undecidable on tombstones,
    /// which keep no payload.
    private func medicationConcepts(_ identifiers: Set<String>, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        let key: String
        switch info?.kind {
        case .medicationDoseEvent: key = "medicationConceptIdentifier"
        case .userAnnotatedMedication: key = "conceptIdentifier"
        case nil: return "0"
        case let kind?:
            throw StoreError.invalid(
                path, value: "type \(type), a \(kind.rawValue) type",
                expected: "a medicationDoseEvent or userAnnotatedMedication type")
        }
        guard identifiers.count <= SamplePredicate.maximumConceptIdentifiers else {
            throw StoreError.invalid(
                path, value: "\(identifiers.count) identifiers",
                expected: "at most \(SamplePredicate.maximumConceptIdentifiers) identifiers in one node")
        }
        if identifiers.isEmpty { return "0" }
        if target == .tombstones { return "NULL" }
        arguments += identifiers.sorted().map { .text($0) }
        return "coalesce(json_extract(CAST(r.payload AS TEXT), '$.\(key)') IN (\(placeholders(identifiers.count))), 0)"
    }

    private func requireKind(_ kind: ObjectKind, field: String) throws(StoreError) {
        guard let info, info.kind != kind else { return }
        throw StoreError.invalid(
            field, value: "type \(type), a \(info.kind.rawValue) type", expected: "a \(kind.rawValue) type")
    }

    private func dateWindow(_ window: DateWindow, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        // Finite dates past the store's range are kept as the nearest end (StoredTime); NaN and
        // infinite ones (only in-process callers can build them) are refused.
        for (name, date) in [("start", window.start), ("end", window.end)] {
            if let date, !date.timeIntervalSince1970.isFinite {
                throw StoreError.invalid("\(path).\(name)", value: "\(date.timeIntervalSince1970) s since 1970", expected: "a finite date")
            }
        }
        if let start = window.start, let end = window.end, end < start {
            throw StoreError.invalid(
                "\(path).end", value: Rendering.date(end),
                expected: "a window end at or after its start \(Rendering.date(start))")
        }
        var tests: [String] = []
        func add(_ sql: String, _ date: Date) {
            tests.append(sql)
            arguments.append(.integer(StoredTime.microseconds(date)))
        }
        // `r.end_us >= ?`. On samples, a row starting at or after the bound ends after it too
        // (no sample ends before it starts), so SQLite evaluates the virtual `end_us` only for the
        // rows that start before the bound: for an instant type, none (a day's heart rate on the
        // 20M store: a third fewer virtual-machine steps).
        func endsAtOrAfter(_ start: Date) {
            if target == .samples {
                tests.append("(r.start_us >= ? OR r.end_us >= ?)")
                arguments.append(.integer(StoredTime.microseconds(start)))
                arguments.append(.integer(StoredTime.microseconds(start)))
            } else {
                add("r.end_us >= ?", start)
            }
        }
        if !window.strictStartDate && !window.strictEndDate {
            if let start = window.start {
                endsAtOrAfter(start)
                if target == .samples {
                    // Implied by the test above (no sample is longer than its type's longest
                    // span); it bounds the (type, start) index scan from below.
                    add(
                        "r.start_us >= ? - coalesce((SELECT max_span_us FROM type_spans WHERE type_id = "
                            + "(SELECT id FROM types WHERE identifier = ?)), 0)", start)
                    arguments.append(.text(type.rawValue))
                }
            }
            if let end = window.end { add("r.start_us < ?", end) }
        }
        if window.strictStartDate {
            if let start = window.start { add("r.start_us >= ?", start) }
            if let end = window.end { add("r.start_us < ?", end) }
        }
        if window.strictEndDate {
            if let start = window.start {
                endsAtOrAfter(start)
                if target == .samples {
                    // As above: schema 15 has no (type, end) index, so the window bounds the
                    // (type, start) scan: a sample ending at or after `start` starts at or after
                    // `start - longest`, and one ending before `end` starts before it.
                    add(
                        "r.start_us >= ? - coalesce((SELECT max_span_us FROM type_spans WHERE type_id = "
                            + "(SELECT id FROM types WHERE identifier = ?)), 0)", start)
                    arguments.append(.text(type.rawValue))
                }
            }
            if let end = window.end {
                add("r.end_us < ?", end)
                if target == .samples { add("r.start_us < ?", end) }
            }
        }
        return tests.isEmpty ? "1" : "(" + tests.joined(separator: " AND ") + ")"
    }

    private func metadata(key: String, test: MetadataTest, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        guard !key.isEmpty else {
            throw StoreError.invalid("\(path).key", value: "\"\"", expected: "a non-empty metadata key")
        }
        // Check every value first, so an invalid predicate is refused whatever the target.
        var comparisons: [(ComparisonOperator, MetadataValue)] = []
        switch test {
        case .exists, .absent:
            break
        case .allowedValues(let values):
            for (index, value) in values.enumerated() {
                try check(value, comparison: .equal, key: key, field: "\(path).allowedValues[\(index)]")
                comparisons.append((.equal, value))
            }
        case .comparison(let comparison, let value):
            try check(value, comparison: comparison, key: key, field: "\(path).comparison")
            comparisons.append((comparison, value))
        }
        // The sync keys have columns on samples and tombstones alike (they are kept together:
        // a sample has both or neither).
        let column: String
        switch key {
        case MetadataKey.syncIdentifier: column = "r.sync_identifier"
        case MetadataKey.syncVersion: column = "r.sync_version"
        default:
            switch target {
            case .tombstones:
                return "NULL"
            case .samples:
                // Decoded from the sample's stored metadata (`salus_metadata`, SQLFunctions), on
                // the rows the rest of the filter keeps.
                if case .exists = test {
                    arguments.append(.text(key))
                    return "salus_metadata(r.metadata, ?, 0, NULL, NULL, NULL)"
                }
                if comparisons.isEmpty { return "0" }
                var tests: [String] = []
                for (comparison, value) in comparisons {
                    tests.append(condition(comparison, value, key: key, into: &arguments))
                }
                return "(" + tests.joined(separator: " OR ") + ")"
            }
        }
        if case .exists = test { return "(\(column) IS NOT NULL)" }
        var tests: [String] = []
        for (comparison, value) in comparisons {
            switch (key, value) {
            case (MetadataKey.syncIdentifier, .string(let text)):
                arguments.append(.text(text))
            case (MetadataKey.syncVersion, .number(let number)):
                arguments.append(.real(number))
            case (MetadataKey.syncVersion, .bool(let flag)):
                arguments.append(.real(flag ? 1 : 0))
            default:
                tests.append("0")
                continue
            }
            tests.append("coalesce(\(column) \(comparison.sql) ?, 0)")
        }
        return tests.isEmpty ? "0" : "(" + tests.joined(separator: " OR ") + ")"
    }

    private func check(_ value: MetadataValue, comparison: ComparisonOperator, key: String, field: String)
        throws(StoreError)
    {
        let declared =
            info.flatMap { catalog.metadataValueType(key, on: $0) }
            ?? (key == MetadataKey.syncIdentifier ? .string : key == MetadataKey.syncVersion ? .number : nil)
        if let declared {
            let numeric: Set<MetadataValueType> = [.number, .bool]
            let compatible = declared == value.type || (numeric.contains(declared) && numeric.contains(value.type))
            guard compatible else {
                throw StoreError.invalid(
                    field, value: "\(value) (\(value.type.rawValue))",
                    expected: "a \(declared.rawValue) value: metadata key \"\(key)\" holds \(declared.rawValue) values")
            }
        }
        switch value {
        case .bool where comparison.isOrdering:
            throw StoreError.invalid(
                field, value: "\(comparison.rawValue) \(value)",
                expected: "equal or notEqual: booleans have no order")
        case .quantity(let quantity) where BaseUnit.normalize(quantity) == nil:
            throw StoreError.invalid(
                field, value: "\(quantity)", expected: "a quantity whose unit converts to a base unit")
        default:
            break
        }
    }

    /// One comparison of the value of `key` in a sample's stored metadata: 0 or 1, never NULL.
    private func condition(
        _ comparison: ComparisonOperator, _ value: MetadataValue, key: String, into arguments: inout [SQLValue]
    ) -> String {
        let operation = SQLFunctions.Operation(comparison).rawValue
        func test(_ kind: SQLFunctions.Kind, _ compared: SQLValue, dimension: String? = nil) -> String {
            arguments += [.text(key), compared]
            if let dimension {
                arguments.append(.text(dimension))
                return "salus_metadata(r.metadata, ?, \(operation), \(kind.rawValue), ?, ?)"
            }
            return "salus_metadata(r.metadata, ?, \(operation), \(kind.rawValue), ?, NULL)"
        }
        switch value {
        case .string(let text):
            return test(.string, .text(text))
        case .number(let number):
            return number.isNaN ? "0" : test(.number, .real(number))
        case .bool(let flag):
            return test(.number, .real(flag ? 1 : 0))
        case .date(let date):
            // Stored in microseconds, as every date of the store; NaN matches nothing.
            guard !date.timeIntervalSince1970.isNaN else { return "0" }
            return test(.date, .integer(StoredTime.microseconds(date)))
        case .quantity(let quantity):
            let (base, dimension) = BaseUnit.normalize(quantity)!
            return base.isNaN ? "0" : test(.quantity, .real(base), dimension: dimension)
        }
    }

    private func workout(_ test: WorkoutTest, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        try requireKind(.workout, field: path)
        switch test {
        case .activityType(let activity):
            arguments.append(.integer(Int64(clamping: activity)))
            return "coalesce(r.activity_type = ?, 0)"
        case .duration(let comparison, let seconds):
            arguments.append(.integer(try Self.microseconds(seconds, field: "\(path).duration.seconds")))
            return "((r.end_us - r.start_us) \(comparison.sql) ?)"
        case .statistic(let quantityType, let statistic, let comparison, let quantity):
            let test = WorkoutStatisticTest(quantityType, statistic, comparison, quantity)
            let (style, value) = try statisticTarget(test, field: "\(path).statistic")
            switch target {
            case .tombstones:
                return "NULL"
            case .samples:
                guard let computed = Self.statisticSQL(statistic, style: style, from: "r.start_us", to: "r.end_us", closed: "1")
                else { return "0" }
                // Computed from the associated samples; without any, the total the save gave.
                arguments += [.text(quantityType.rawValue), .text(quantityType.rawValue), .integer(Int64(statistic.rawValue)), .real(value)]
                return "coalesce(coalesce(\(computed), (SELECT w.value FROM workout_statistics w WHERE w.sample_id = r.id AND "
                    + "w.quantity_type_id = (SELECT id FROM types WHERE identifier = ?) AND w.statistic = ?)) "
                    + "\(comparison.sql) ?, 0)"
            }
        case .activity(let activity):
            let field = "\(path).activity"
            var tests: [String] = []
            var activityArguments: [SQLValue] = []
            if let activityType = activity.activityType {
                tests.append("a.activity_type = ?")
                activityArguments.append(.integer(Int64(clamping: activityType)))
            }
            if let duration = activity.duration {
                tests.append("(a.end_us - a.start_us) \(duration.comparison.sql) ?")
                activityArguments.append(.integer(try Self.microseconds(duration.seconds, field: "\(field).duration.seconds")))
            }
            if let statistic = activity.statistic {
                let (style, value) = try statisticTarget(statistic, field: "\(field).statistic")
                // An activity that ends with the workout counts a point sample at that end, as
                // the served figure does (WorkoutFigures.completing).
                if let computed = Self.statisticSQL(
                    statistic.statistic, style: style, from: "a.start_us", to: "a.end_us", closed: "a.end_us = r.end_us")
                {
                    tests.append("coalesce(\(computed) \(statistic.comparison.sql) ?, 0)")
                    activityArguments += [.text(statistic.quantityType.rawValue), .real(value)]
                } else {
                    tests.append("0")
                }
            }
            switch target {
            case .tombstones:
                return "NULL"
            case .samples:
                arguments += activityArguments
                return "EXISTS (SELECT 1 FROM workout_activities a WHERE a.sample_id = r.id"
                    + tests.map { " AND \($0)" }.joined() + ")"
            }
        }
    }

    /// A compared duration in microseconds, or the invalid-argument error of the one duration
    /// check (``WorkoutTest/durationMicroseconds(_:field:)``, as the wire conversion gives it)
    /// naming `field`, the comparison's `seconds`.
    private static func microseconds(_ seconds: Double, field: String) throws(StoreError) -> Int64 {
        do {
            return try WorkoutTest.durationMicroseconds(seconds, field: field)
        } catch {
            throw StoreError.invalid(error.field, value: error.value, expected: error.expected, reason: error.reason)
        }
    }

    /// The quantity type's aggregation style and the compared value in its canonical unit, or an
    /// invalid-argument error naming the field.
    private func statisticTarget(_ test: WorkoutStatisticTest, field: String) throws(StoreError)
        -> (AggregationStyle, Double)
    {
        guard let rules = catalog.rules(for: test.quantityType), rules.kind == .quantity, let unit = rules.canonicalUnit else {
            throw StoreError.invalid(
                "\(field).quantityType", value: "\"\(test.quantityType)\"", expected: "a quantity type the catalog knows")
        }
        do {
            return (rules.aggregationStyle ?? .cumulative, try test.quantity.doubleValue(for: unit))
        } catch {
            throw StoreError.invalid(
                "\(field).quantity", value: "\(test.quantity)",
                expected: "a unit of \(unit.dimension), like \(test.quantityType)'s canonical unit \(unit)")
        }
    }

    /// A scalar subquery computing `statistic` over `from`..<`to` (`...to` where the SQL condition
    /// `closed` holds: "1" for a workout, which counts a point sample at its own end) from
    /// the quantity samples of one type (its identifier the one bound parameter) saved by the
    /// workout's app (`r.app_ref`), pro-rated as `WorkoutFigures` does (docs/workouts.md): NULL
    /// when no sample counts; nil when the type's style does not allow the statistic (sum for
    /// cumulative types; average, minimum, maximum for discrete ones).
    package static func statisticSQL(
        _ statistic: WorkoutStatistic, style: AggregationStyle, from: String, to: String, closed: String
    ) -> String? {
        let fraction = "(CASE WHEN q.end_us = q.start_us THEN (CASE WHEN q.start_us >= \(from) "
            + "AND (q.start_us < \(to) OR (q.start_us = \(to) AND \(closed))) "
            + "THEN 1.0 ELSE 0.0 END) ELSE max(0, min(q.end_us, \(to)) - max(q.start_us, \(from))) * 1.0 / (q.end_us - q.start_us) END)"
        let aggregate: String
        switch (statistic, style.isCumulative) {
        case (.sum, true): aggregate = "sum(q.value * \(fraction))"
        case (.average, false): aggregate = "sum(q.value * \(fraction)) / sum(\(fraction))"
        case (.minimum, false): aggregate = "min(q.value)"
        case (.maximum, false): aggregate = "max(q.value)"
        default: return nil
        }
        // A range of the (type, start) index from `from` less the type's longest span, which no
        // overlapping sample starts before; the app is a filter on it (`+`: the (app, type)
        // index would walk every sample of the type the app saved, for each workout).
        return "(SELECT \(aggregate) FROM types qt JOIN type_spans qs ON qs.type_id = qt.id CROSS JOIN samples q "
            + "WHERE qt.identifier = ? AND q.type_id = qt.id AND q.start_us >= \(from) - qs.max_span_us "
            + "AND q.start_us <= \(to) AND q.end_us >= \(from) AND +q.app_ref = r.app_ref AND q.kind = 0 "
            + "AND q.value IS NOT NULL AND \(fraction) > 0)"
    }
}

extension PredicateCompiler {
    /// A prescription test, over the JSON payload (`Payloads.PrescriptionPayload`: raw type,
    /// dates as seconds since 2001). Undecidable on tombstones, which keep no payload.
    fileprivate func prescription(_ test: PrescriptionTest, path: String, into arguments: inout [SQLValue])
        throws(StoreError) -> String
    {
        try requireKind(.visionPrescription, field: path)
        func field(_ name: String) -> String { "json_extract(CAST(r.payload AS TEXT), '$.\(name)')" }
        // Check the ranges first, so an invalid predicate is refused whatever the target.
        switch test {
        case .dateIssued(let start?, let end?) where end < start:
            throw StoreError.invalid(
                "\(path).dateIssued.endDate", value: Rendering.date(end),
                expected: "a range end at or after its start \(Rendering.date(start))")
        case .expirationDate(let start?, let end?) where end < start:
            throw StoreError.invalid(
                "\(path).expirationDate.endDate", value: Rendering.date(end),
                expected: "a range end at or after its start \(Rendering.date(start))")
        default:
            break
        }
        func range(_ name: String, _ start: Date?, _ end: Date?) -> String {
            var tests = ["\(field(name)) IS NOT NULL"]
            if let start {
                tests.append("\(field(name)) >= ?")
                arguments.append(.real(start.timeIntervalSinceReferenceDate))
            }
            if let end {
                tests.append("\(field(name)) < ?")
                arguments.append(.real(end.timeIntervalSinceReferenceDate))
            }
            return "coalesce(" + tests.joined(separator: " AND ") + ", 0)"
        }
        if target == .tombstones { return "NULL" }
        switch test {
        case .prescriptionType(let type):
            arguments.append(.integer(Int64(type.rawValue)))
            return "coalesce(\(field("prescriptionType")) = ?, 0)"
        case .dateIssued(let start, let end):
            return range("dateIssued", start, end)
        case .expirationDate(let start, let end):
            return range("expirationDate", start, end)
        case .validAt(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            arguments += [.real(seconds), .real(seconds)]
            return "coalesce(\(field("dateIssued")) <= ? AND (\(field("expirationDate")) IS NULL OR "
                + "\(field("expirationDate")) > ?), 0)"
        }
    }
}

/// Values rendered for error messages.
enum Rendering {
    static func date(_ date: Date) -> String {
        guard date.timeIntervalSince1970.isFinite else { return "\(date.timeIntervalSince1970) s since 1970" }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
