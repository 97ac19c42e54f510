import Foundation
import SalusKit
import SalusModel
import SalusRPC

/// Where a type's samples lie in the store: the first start and the last end. A report or a
/// statistics period that finds nothing says where the data is, and how to ask for it.
struct DataRange: Equatable {
    var first: Date
    var last: Date

    /// The range of `types` together (each type's earliest start and latest start, with that
    /// sample's end), nil when none of them holds a sample. Types no plugin declares are skipped.
    static func of(_ types: [String], client: RPCClient, known: Set<String>) async throws -> DataRange? {
        var range: DataRange?
        for type in types where known.contains(type) {
            let earliest = SampleQueryDescriptor(type: SampleType(type), predicate: nil, sortDescriptors: [.startDate(ascending: true)], limit: 1)
            let latest = SampleQueryDescriptor(type: SampleType(type), predicate: nil, sortDescriptors: [.startDate(ascending: false)], limit: 1)
            guard let first = try await WorkoutText.fetch(earliest, client: client).first,
                  let last = try await WorkoutText.fetch(latest, client: client).first else { continue }
            let found = DataRange(first: first.startDate, last: max(last.endDate, last.startDate))
            range = range.map { DataRange(first: min($0.first, found.first), last: max($0.last, found.last)) } ?? found
        }
        return range
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
