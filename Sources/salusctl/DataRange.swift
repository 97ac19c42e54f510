import Foundation
import SalusKit
import SalusModel
import SalusAdmin

/// Where a type's samples lie in the store: the first start and the last end. A report or a
/// statistics period that finds nothing says where the data is, and how to ask for it.
struct DataRange: Equatable {
    var first: Date
    var last: Date

    /// Each of `types` that holds a sample, with its range.
    static func byType(_ types: [String], admin: AdminClient) async throws -> [String: DataRange] {
        var ranges: [String: DataRange] = [:]
        for type in types {
            if let range = try await of([type], admin: admin, known: [type]) { ranges[type] = range }
        }
        return ranges
    }

    /// After an import: the days the store holds and the commands that show the last of them.
    static func printWhereToLook(admin: AdminClient) async throws {
        let registry = Registry(try await admin.types())
        let types = registry.types.filter { $0.kind == .quantity || $0.kind == .category || $0.kind == .workout }.map(\.identifier)
        let ranges = try await byType(types, admin: admin)
        guard let all = ranges.values.reduce(nil, { (found: DataRange?, range: DataRange) in
            found.map { DataRange(first: min($0.first, range.first), last: max($0.last, range.last)) } ?? range
        }) else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let month = all.lastDays(30, calendar)
        print("The store holds data from \(all.days(calendar)). To see its last days:")
        print("  salusctl report --since \(month.since) --until \(month.until) --out report.html")
        let statistics = [QuantityTypeIdentifier.stepCount.rawValue, QuantityTypeIdentifier.heartRate.rawValue, "HKQuantityTypeIdentifierActiveEnergyBurned",
                          "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierBodyMass"]
        if let type = statistics.first(where: { ranges[$0] != nil }), let range = ranges[type] {
            let week = range.lastDays(7, calendar)
            let name = Registry.shortNames(type).first ?? type
            print("  salusctl stats \(name) --interval day --since \(week.since) --until \(week.until)")
        }
        if let newest = ranges.max(by: { $0.value.last < $1.value.last }) {
            let name = Registry.shortNames(newest.key).first ?? newest.key
            print("  salusctl samples \(name) --since \(DataRange.day(calendar.startOfDay(for: newest.value.last), calendar))")
        }
    }

    /// The range of `types` together (each type's earliest start and latest start, with that
    /// sample's end), nil when none of them holds a sample. Types no plugin declares are skipped.
    static func of(_ types: [String], admin: AdminClient, known: Set<String>) async throws -> DataRange? {
        do {
            return try await admin.sampleRange(of: types.filter(known.contains)).map { DataRange(first: $0.start, last: $0.end) }
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    /// A day as the commands take it, in `calendar`'s zone.
    static func day(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// "2014-09-13 to 2016-03-07".
    func days(_ calendar: Calendar) -> String {
        "\(Self.day(first, calendar)) to \(Self.day(last, calendar))"
    }

    /// The last `count` days of the range, as (first day, last day): a period to ask for.
    func lastDays(_ count: Int, _ calendar: Calendar) -> (since: String, until: String) {
        let lastDay = calendar.startOfDay(for: last)
        let firstDay = max(calendar.date(byAdding: .day, value: -(count - 1), to: lastDay)!, calendar.startOfDay(for: first))
        return (Self.day(firstDay, calendar), Self.day(lastDay, calendar))
    }
}
