import Foundation

/// A day of the Gregorian calendar with no time zone: a date of birth, the day of an activity
/// summary. HealthKit uses `DateComponents` (year, month, day) for both.
public struct CalendarDate: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The year (e.g. 1984).
    public var year: Int
    /// 1–12.
    public var month: Int
    /// 1–31, valid for the month.
    public var day: Int

    /// A day; `isValid` says whether it exists.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses "YYYY-MM-DD"; nil unless the text is exactly that and the day exists.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
        guard isValid else { return nil }
    }

    /// The day containing `date` in `timeZone`.
    public init(containing date: Date, in timeZone: TimeZone) {
        let parts = Self.calendar(timeZone).dateComponents([.year, .month, .day], from: date)
        self.init(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// Whether the day exists (month 1–12, day within the month, year 1–9999).
    public var isValid: Bool {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
        let lengths = [31, Self.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// "YYYY-MM-DD".
    public var description: String {
        let y = String(year), m = String(month), d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-"
            + (m.count < 2 ? "0" : "") + m + "-" + (d.count < 2 ? "0" : "") + d
    }

    /// The instant the day begins in `timeZone` (local midnight, or the first valid time after
    /// it on a day whose midnight was skipped).
    public func start(in timeZone: TimeZone) -> Date {
        let calendar = Self.calendar(timeZone)
        return calendar.startOfDay(for: calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!)
    }

    /// The day's interval in `timeZone`: 23 or 25 hours long on a daylight-saving change.
    public func interval(in timeZone: TimeZone) -> DateInterval {
        DateInterval(start: start(in: timeZone), end: adding(days: 1).start(in: timeZone))
    }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int) -> CalendarDate {
        let calendar = Self.calendar(TimeZone(identifier: "UTC")!)
        let date = calendar.date(byAdding: .day, value: days, to: calendar.date(from: DateComponents(year: year, month: month, day: day))!)!
        return CalendarDate(containing: date, in: TimeZone(identifier: "UTC")!)
    }

    /// Days from `self` to `other` (negative when `other` is earlier).
    public func days(to other: CalendarDate) -> Int {
        let calendar = Self.calendar(TimeZone(identifier: "UTC")!)
        let from = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let to = calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day))!
        return Int((to.timeIntervalSince(from) / 86_400).rounded())
    }

    /// Encodes as "YYYY-MM-DD".
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes "YYYY-MM-DD".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = CalendarDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a day (YYYY-MM-DD)")
        }
        self = date
    }

    /// Orders days in time.
    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
