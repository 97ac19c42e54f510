import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore
import SalusWire

/// Statistics requests and results between the wire and the engine.
enum StatisticsWire {
    static func type(_ text: String) throws(RPCError) -> TypeIdentifier {
        guard !text.isEmpty else { throw RPCError.invalidArgument(field: "type", value: "", expected: "a quantity type identifier") }
        return TypeIdentifier(text)
    }

    static func options(_ wire: [Salus_V1_StatisticsOption]) throws(RPCError) -> StatisticsOptions {
        do {
            return try StatisticsOptions(wire: wire, path: "options")
        } catch {
            throw RPCError.from(error)
        }
    }

    static func unit(_ text: String) throws(RPCError) -> SalusUnit? {
        guard !text.isEmpty else { return nil }
        do {
            return try SalusUnit(parsing: text)
        } catch {
            throw RPCError.invalidArgument(field: "unit", value: text, expected: "a unit such as count, km or count/min (\(error.message))")
        }
    }

    /// The unit results are expressed in: `unit` (the request's or the owner's preferred one),
    /// else the type's canonical unit.
    static func unitText(_ unit: SalusUnit?, type: TypeIdentifier, store: SampleStore) throws(RPCError) -> String {
        if let unit { return unit.description }
        return store.catalog.rules(for: type)?.canonicalUnit?.description ?? ""
    }

    /// Microseconds since the epoch of 0001-01-01 and 9999-12-31 (UTC): the dates statistics
    /// accept, so that calendar arithmetic stays within what calendars compute.
    static let earliest: Int64 = -62_135_596_800_000_000
    static let latest: Int64 = 253_402_214_400_000_000

    /// The date of a request's field; a time outside years 1 to 9999 is refused naming `field`.
    static func date(_ microseconds: Int64, field: String) throws(RPCError) -> Date {
        guard microseconds >= earliest, microseconds <= latest else {
            throw RPCError.invalidArgument(
                field: field, value: "\(microseconds)",
                expected: "microseconds since the Unix epoch between \(earliest) (0001-01-01) and \(latest) (9999-12-31)")
        }
        return Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    static func microseconds(_ date: Date) -> Int64 {
        guard date > .distantPast, date < .distantFuture else { return 0 }
        return Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    static func grid(_ request: Salus_V1_StatisticsCollectionRequest) throws(RPCError) -> IntervalGrid {
        let unit: StatisticsInterval.Unit
        switch request.intervalUnit {
        case .second: unit = .second
        case .minute: unit = .minute
        case .hour: unit = .hour
        case .day: unit = .day
        case .week: unit = .week
        case .month: unit = .month
        case .unspecified, .UNRECOGNIZED:
            throw RPCError.invalidArgument(
                field: "intervalUnit", value: "\(request.intervalUnit.rawValue)", expected: "SECOND, MINUTE, HOUR, DAY, WEEK or MONTH")
        }
        let interval: StatisticsInterval
        do {
            interval = try StatisticsInterval(Int(request.intervalCount), unit, field: "intervalCount")
        } catch {
            throw RPCError.from(error)
        }
        var calendar = Calendar(identifier: .gregorian)
        if request.timeZone.isEmpty {
            calendar.timeZone = .current
        } else if let zone = TimeZone(identifier: request.timeZone) {
            calendar.timeZone = zone
        } else {
            throw RPCError.invalidArgument(field: "timeZone", value: request.timeZone, expected: "an IANA time zone such as Europe/Paris")
        }
        return IntervalGrid(anchor: try date(request.anchorDate, field: "anchorDate"), interval: interval, calendar: calendar)
    }

    static func result(_ statistics: Statistics, unit: String) -> Salus_V1_StatisticsResult {
        var wire = Salus_V1_StatisticsResult()
        wire.startDate = microseconds(statistics.startDate)
        wire.endDate = microseconds(statistics.endDate)
        wire.unit = unit
        wire.values = statistics.values.wire
        wire.sources = statistics.sources
        wire.bySource = statistics.bySource.mapValues(\.wire)
        return wire
    }
}
