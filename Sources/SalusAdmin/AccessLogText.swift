import Foundation
import SalusProto
import SwiftProtobuf

extension AdminJSON {
    /// The access log as `salus.v1.AccessLogResponse`'s JSON (what `salusctl access --json`
    /// prints): `{"entries": [{"appId", "type", "kind": "ACCESS_KIND_…", "hour", "first", "last",
    /// "count"}], "retentionSeconds"}`, dates in microseconds since 1970.
    public static func text(accessLog: AccessLogListing) throws -> String {
        var response = Salus_V1_AccessLogResponse()
        response.retentionSeconds = accessLog.retention.components.seconds
        response.entries = accessLog.entries.map { entry in
            var wire = Salus_V1_AccessLogEntry()
            wire.appID = entry.appID
            wire.type = entry.type
            wire.kind = entry.kind.wire
            wire.hour = AdminClient.microseconds(entry.hour)
            wire.first = AdminClient.microseconds(entry.first)
            wire.last = AdminClient.microseconds(entry.last)
            wire.count = UInt64(max(0, entry.count))
            return wire
        }
        return try response.jsonString(options: options)
    }

    /// A registered app as `apps show --json` prints it: its `salus.v1.AppInfo` JSON with a
    /// `"wrote"` array of what it wrote per type (`salus.v1.AppTypeData`: `type`, `count`,
    /// `first`, `last` in microseconds since 1970), as the text form lists it.
    public static func text(app: AppInfo, wrote summary: AppDataSummary) throws -> String {
        let info = try text(app: app)
        let rows = try summary.types.map { type in
            var row = Salus_V1_AppTypeData()
            row.type = type.type
            row.count = UInt64(max(0, type.count))
            row.first = AdminClient.microseconds(type.first)
            row.last = AdminClient.microseconds(type.last)
            return try row.jsonString(options: options)
        }
        guard info.hasSuffix("}") else { return info }
        let separator = info == "{}" ? "" : ","
        return info.dropLast() + separator + "\"wrote\":[" + rows.joined(separator: ",") + "]}"
    }

    /// What an app wrote (`salus.v1.AppDataSummary`'s JSON), dates in microseconds since 1970.
    public static func text(appData summary: AppDataSummary) throws -> String {
        var wire = Salus_V1_AppDataSummary()
        wire.appID = summary.appID
        wire.registered = summary.registered
        wire.types = summary.types.map { type in
            var row = Salus_V1_AppTypeData()
            row.type = type.type
            row.count = UInt64(max(0, type.count))
            row.first = AdminClient.microseconds(type.first)
            row.last = AdminClient.microseconds(type.last)
            return row
        }
        return try wire.jsonString(options: options)
    }
}

extension AccessKind {
    var wire: Salus_V1_AccessKind {
        switch self {
        case .write: .write
        case .delete: .delete
        case .sampleQuery: .sampleQuery
        case .anchoredQuery: .anchoredQuery
        case .liveFeed: .liveFeed
        case .observer: .observer
        case .sourceQuery: .sourceQuery
        case .statistics: .statistics
        }
    }
}

/// The access log in words a person reads: one sentence per app, day, type and kind of access,
/// newest first ("org.example.fit read heart rate 41 times today, last at 14:02, through a live
/// feed").
public enum AccessLogText {
    /// One line of the log in words, with what it sums.
    public struct Line: Sendable, Hashable {
        public var appID: String
        public var type: String
        public var kind: AccessKind
        /// The day's start, in the calendar's zone.
        public var day: Date
        public var count: Int
        public var last: Date
        /// The sentence.
        public var text: String
    }

    /// The entries summed per app, day (in `calendar`'s zone), type and kind, newest last access
    /// first; `now` says which day is "today".
    public static func lines(_ entries: [AccessLogEntry], now: Date = Date(), calendar: Calendar = .current) -> [Line] {
        struct Key: Hashable {
            var appID: String
            var type: String
            var kind: AccessKind
            var day: Date
        }
        var sums: [Key: (count: Int, last: Date)] = [:]
        for entry in entries {
            let key = Key(appID: entry.appID, type: entry.type, kind: entry.kind, day: calendar.startOfDay(for: entry.last))
            let sum = sums[key] ?? (0, entry.last)
            sums[key] = (sum.count + entry.count, max(sum.last, entry.last))
        }
        let today = calendar.startOfDay(for: now)
        return sums.map { key, sum in
            var text = "\(key.appID) \(key.kind.verb) \(typeName(key.type)) \(times(sum.count)) \(dayText(key.day, today: today, calendar))"
            text += ", last at \(clock(sum.last, calendar))"
            if !key.kind.means.isEmpty { text += ", \(key.kind.means)" }
            return Line(
                appID: key.appID, type: key.type, kind: key.kind, day: key.day, count: sum.count, last: sum.last, text: text)
        }
        .sorted { ($0.last, $1.appID, $1.type) > ($1.last, $0.appID, $0.type) }
    }

    /// "heart rate" for HKQuantityTypeIdentifierHeartRate, "migraine severity" for
    /// org.example.migraine.severity: the short name in lower-case words.
    public static func typeName(_ identifier: String) -> String {
        guard let short = TypeNames.shortNames(identifier).first else { return identifier }
        var words = ""
        for character in short {
            if character == "." || character == "_" {
                words.append(" ")
            } else if character.isUppercase {
                if !words.isEmpty && words.last != " " { words.append(" ") }
                words.append(contentsOf: character.lowercased())
            } else {
                words.append(character)
            }
        }
        return words
    }

    static func times(_ count: Int) -> String {
        switch count {
        case 1: "once"
        case 2: "twice"
        default: "\(count) times"
        }
    }

    static func dayText(_ day: Date, today: Date, _ calendar: Calendar) -> String {
        if day == today { return "today" }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: today), day == yesterday { return "yesterday" }
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "on %04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func clock(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// "30 days", "12 hours", "1 day".
    public static func duration(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds % 86_400 == 0 { return seconds == 86_400 ? "1 day" : "\(seconds / 86_400) days" }
        if seconds % 3_600 == 0 { return seconds == 3_600 ? "1 hour" : "\(seconds / 3_600) hours" }
        return "\(seconds) seconds"
    }
}
