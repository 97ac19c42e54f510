import Foundation
import SalusModel
import SalusProto

extension StatisticsOptions {
    /// Each option beside its `salus.v1.StatisticsOption`, in the wire's order.
    static let wireValues: [(option: StatisticsOptions, wire: Salus_V1_StatisticsOption)] = [
        (.cumulativeSum, .cumulativeSum), (.discreteAverage, .discreteAverage), (.discreteMin, .discreteMin),
        (.discreteMax, .discreteMax), (.mostRecent, .mostRecent), (.duration, .duration),
        (.separateBySource, .separateBySource),
    ]

    /// The wire form: one `salus.v1.StatisticsOption` per option set, in the wire's order.
    package var wire: [Salus_V1_StatisticsOption] {
        Self.wireValues.filter { contains($0.option) }.map(\.wire)
    }

    /// The options of a request; an unspecified or unknown value is refused naming `path[i]`.
    package init(wire: [Salus_V1_StatisticsOption], path: String) throws(ValidationError) {
        self = []
        for (index, value) in wire.enumerated() {
            guard let match = Self.wireValues.first(where: { $0.wire == value }) else {
                throw ValidationError(
                    reason: .invalidValue, field: "\(path)[\(index)]", value: "\(value.rawValue)",
                    expected: "a StatisticsOption from 1 to 7")
            }
            insert(match.option)
        }
    }
}

extension StatisticValues {
    /// The wire form; quantities are sent as numbers in the result's unit (the caller converts
    /// them first), durations in seconds.
    package var wire: Salus_V1_StatisticValues {
        var wire = Salus_V1_StatisticValues()
        if let sum { wire.sum = sum.value }
        if let average { wire.average = average.value }
        if let minimum { wire.minimum = minimum.value }
        if let maximum { wire.maximum = maximum.value }
        if let mostRecent { wire.mostRecent = mostRecent.value }
        if let mostRecentInterval {
            wire.mostRecentStart = WireDate.microseconds(mostRecentInterval.start)
            wire.mostRecentEnd = WireDate.microseconds(mostRecentInterval.end)
        }
        if let duration { wire.duration = duration.value }
        return wire
    }

    /// Values received in `unit` (durations in seconds).
    package init(wire: Salus_V1_StatisticValues, unit: SalusUnit) {
        self.init()
        let quantity = { (value: Double) in Quantity(value: value, unit: unit) }
        if case .sum(let value)? = wire.optionalSum { sum = quantity(value) }
        if case .average(let value)? = wire.optionalAverage { average = quantity(value) }
        if case .minimum(let value)? = wire.optionalMinimum { minimum = quantity(value) }
        if case .maximum(let value)? = wire.optionalMaximum { maximum = quantity(value) }
        if case .mostRecent(let value)? = wire.optionalMostRecent {
            mostRecent = quantity(value)
            let start = WireDate.date(wire.mostRecentStart)
            mostRecentInterval = DateInterval(start: start, end: max(start, WireDate.date(wire.mostRecentEnd)))
        }
        if case .duration(let value)? = wire.optionalDuration { duration = Quantity(value: value, unit: .second) }
    }
}
