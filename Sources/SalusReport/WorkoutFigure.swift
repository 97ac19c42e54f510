import Foundation
import SalusModel

/// Where a figure of a workout (or of one of its activities) comes from.
package enum WorkoutFigureOrigin: String, Hashable, Sendable {
    /// Computed by the daemon from the samples saved during the workout (`WorkoutStatistics.fromSamples`).
    case samples
    /// Given when the workout was saved (an import's totals, a total an app gave), for a type
    /// with no samples.
    case workout

    /// "from samples", "saved with the workout": how `salusctl workouts show` marks it.
    package var label: String { self == .samples ? "from samples" : "saved with the workout" }
}

/// One figure of a workout or an activity: a type's statistics and where they come from.
package struct WorkoutFigure: Hashable, Sendable {
    package var type: TypeIdentifier
    package var statistics: WorkoutStatistics
    package var origin: WorkoutFigureOrigin

    package init(type: TypeIdentifier, statistics: WorkoutStatistics, origin: WorkoutFigureOrigin) {
        self.type = type
        self.statistics = statistics
        self.origin = origin
    }
}

/// The figures of a workout as the owner's tools show them (`salusctl workouts`, the report).
extension WorkoutFigureText {
    /// Every figure to show, sorted by type: the statistics served (`served`, a workout's or an
    /// activity's `allStatistics`), each from samples or saved as the daemon marks it, then for
    /// each type with none there the total the workout was saved with (`saved`, its
    /// `statistics`): the sum of a `cumulative` type, the average of any other.
    ///
    /// **The one rule** for a saved total's meaning: `salusctl workouts` and the report both call
    /// it, with the cumulative types of the daemon's type listing.
    package static func all(
        _ served: [TypeIdentifier: WorkoutStatistics], saved: [TypeIdentifier: Quantity], cumulative: Set<TypeIdentifier>
    ) -> [WorkoutFigure] {
        var result = served.map { WorkoutFigure(type: $0.key, statistics: $0.value, origin: $0.value.fromSamples ? .samples : .workout) }
        for (type, total) in saved where served[type] == nil {
            let statistics = cumulative.contains(type) ? WorkoutStatistics(sum: total) : WorkoutStatistics(average: total)
            result.append(WorkoutFigure(type: type, statistics: statistics, origin: .workout))
        }
        return result.sorted { $0.type.rawValue < $1.type.rawValue }
    }

    /// The unit a figure is printed in: rates per second (the canonical unit of heart rate) per
    /// minute, as people read them; others as they are.
    package static func shown(_ quantity: Quantity) -> Quantity {
        let perMinute = SalusUnit.count.divided(by: .minute)
        guard quantity.unit == SalusUnit.count.divided(by: .second), let value = try? quantity.doubleValue(for: perMinute) else {
            return quantity
        }
        return Quantity(value: value, unit: perMinute)
    }

    /// One line per figure: "HeartRate: average 152.3, min 140, max 171 count/min (from samples)",
    /// "DistanceWalkingRunning: 5012.5 m (saved with the workout)".
    package static func lines(_ figures: [WorkoutFigure]) -> [String] {
        figures.map { figure in
            let name = figure.type.rawValue.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            let statistics = figure.statistics
            if let sum = statistics.sum.map(shown) {
                return "\(name): \(ReportNumbers.decimal(sum.value)) \(sum.unit) (\(figure.origin.label))"
            }
            let parts = [("average", statistics.average), ("min", statistics.minimum), ("max", statistics.maximum)]
                .compactMap { label, quantity in quantity.map { "\(label) \(ReportNumbers.decimal(shown($0).value))" } }
            return "\(name): \(parts.joined(separator: ", ")) \(statistics.average.map { shown($0).unit.description } ?? "") (\(figure.origin.label))"
        }
    }

    /// The figures as JSON: type → {sum | average, minimum, maximum, unit, from: "samples" |
    /// "workout"}, values in the type's canonical unit.
    package static func jsonObject(_ figures: [WorkoutFigure]) -> [String: Any] {
        var result: [String: Any] = [:]
        for figure in figures {
            let statistics = figure.statistics
            var object: [String: Any] = ["from": figure.origin.rawValue]
            if let sum = statistics.sum { object["sum"] = sum.value; object["unit"] = sum.unit.description }
            if let average = statistics.average { object["average"] = average.value; object["unit"] = average.unit.description }
            if let minimum = statistics.minimum { object["minimum"] = minimum.value }
            if let maximum = statistics.maximum { object["maximum"] = maximum.value }
            result[figure.type.rawValue] = object
        }
        return result
    }
}
