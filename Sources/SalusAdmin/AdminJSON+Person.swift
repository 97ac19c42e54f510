import Foundation
import SalusModel
import SalusWire

/// The JSON of `salusctl me --json`, `summary --json` and `stats --json`: objects of plain keys,
/// sorted, that scripts read.
extension AdminJSON {
    /// Each characteristic by identifier: `{"name", "rawValue"}` for an enumeration (name null
    /// when `types` does not declare the raw value), `{"date": "YYYY-MM-DD"}`, or null when not set.
    public static func text(characteristics: [Characteristic], types: [RegisteredType]) -> String {
        let byID = Dictionary(types.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        var object: [String: Any] = [:]
        for item in characteristics {
            switch item.value {
            case .enumeration(let raw)?:
                let name = byID[item.type.rawValue]?.cases.first { $0.rawValue == raw }?.name
                object[item.type.rawValue] = ["rawValue": raw, "name": name ?? NSNull()] as [String: Any]
            case .date(let date)?:
                object[item.type.rawValue] = ["date": day(date)]
            case nil:
                object[item.type.rawValue] = NSNull()
            }
        }
        return serialise(object, options: [.sortedKeys, .prettyPrinted]) ?? "{}"
    }

    /// One object per day: the rings, their goals, the move mode, the time zone, the day's
    /// start and end in microseconds since the epoch.
    public static func text(summaries: [ActivitySummary]) -> String {
        let objects: [[String: Any]] = summaries.map { day in
            [
                "date": Self.day(day.date), "timeZone": day.timeZone.identifier, "activityMoveMode": day.activityMoveMode,
                "wheelchairUse": day.wheelchairUse,
                "activeEnergyBurned": day.activeEnergyBurned, "activeEnergyBurnedGoal": day.goals.activeEnergyBurned,
                "appleMoveTime": day.appleMoveTime, "appleMoveTimeGoal": day.goals.appleMoveTime,
                "appleExerciseTime": day.appleExerciseTime, "appleExerciseTimeGoal": day.goals.appleExerciseTime,
                "appleStandHours": day.appleStandHours, "appleStandHoursGoal": day.goals.appleStandHours,
                "startDate": WireDate.microseconds(day.interval.start), "endDate": WireDate.microseconds(day.interval.end),
            ]
        }
        return serialise(objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]) ?? "[]"
    }

    /// One object per period: `start` and `end` in ISO 8601 in `timeZone`, `unit`, `sources`,
    /// the figures asked (`sum`, `average`, `minimum`, `maximum`) and, by source, each source's.
    public static func text(statistics: [MergedStatistics], timeZone: TimeZone = .current) -> String {
        let style = Date.ISO8601FormatStyle(timeZone: timeZone)
        func figures(_ values: StatisticFigures) -> [String: Any] {
            var object: [String: Any] = [:]
            if let sum = values.sum { object["sum"] = sum }
            if let average = values.average { object["average"] = average }
            if let minimum = values.minimum { object["minimum"] = minimum }
            if let maximum = values.maximum { object["maximum"] = maximum }
            return object
        }
        let objects: [[String: Any]] = statistics.map { result in
            var object = figures(result.values)
            object["start"] = result.startDate.formatted(style)
            object["end"] = result.endDate.formatted(style)
            object["unit"] = result.unit
            object["sources"] = result.sources
            if !result.bySource.isEmpty { object["bySource"] = result.bySource.mapValues(figures) }
            return object
        }
        return serialise(objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]) ?? "[]"
    }

    /// "1984-02-29".
    public static func day(_ date: CalendarDate) -> String {
        String(format: "%04ld-%02ld-%02ld", date.year, date.month, date.day)
    }

    static func serialise(_ value: Any, options: JSONSerialization.WritingOptions) -> String? {
        (try? JSONSerialization.data(withJSONObject: value, options: options)).map { String(decoding: $0, as: UTF8.self) }
    }
}
