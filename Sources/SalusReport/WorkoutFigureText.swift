import Foundation
import SalusModel

/// A workout's figures as the report lists them: "5.10 km running", "310 kcal active",
/// "average heart rate 148 bpm".
package enum WorkoutFigureText {
    static let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")

    /// The statistics computed from the workout's samples, and for types without samples the
    /// totals it was saved with (an imported workout's WorkoutStatistics), by
    /// `WorkoutFigureText.all`'s rule: the sum of a `cumulative` type, the average of any other.
    package static func merged(
        _ computed: [TypeIdentifier: WorkoutStatistics], saved: [TypeIdentifier: Quantity], cumulative: Set<TypeIdentifier>
    ) -> [TypeIdentifier: WorkoutStatistics] {
        Dictionary(
            WorkoutFigureText.all(computed, saved: saved, cumulative: cumulative).map { ($0.type, $0.statistics) },
            uniquingKeysWith: { first, _ in first })
    }

    /// "5.10 km", "310 kcal", "average 148 bpm": distances, energy and heart rate of a workout.
    package static func figures(_ statistics: [TypeIdentifier: WorkoutStatistics]) -> [String] {
        var figures: [String] = []
        let kilometres = try? SalusUnit(parsing: "km"), kilocalories = try? SalusUnit(parsing: "kcal")
        let perMinute = try? SalusUnit(parsing: "count/min")
        // Distances first, then energy, then heart rate.
        func rank(_ name: String) -> Int { name.contains("Distance") ? 0 : name.hasSuffix("EnergyBurned") ? 1 : 2 }
        for (type, values) in statistics.sorted(by: { (rank($0.key.rawValue), $0.key.rawValue) < (rank($1.key.rawValue), $1.key.rawValue) }) {
            let name = type.rawValue
            if name.contains("Distance"), let unit = kilometres, let sum = try? values.sum?.doubleValue(for: unit) {
                let kind = name.replacingOccurrences(of: "HKQuantityTypeIdentifierDistance", with: "")
                let label = ["WalkingRunning": "running", "DownhillSnowSports": "snow sports", "CrossCountrySkiing": "skiing"][kind] ?? kind.lowercased()
                figures.append(String(format: "%.2f km", sum) + (label.isEmpty ? "" : " \(label)"))
            } else if name.hasSuffix("EnergyBurned"), name.contains("Active"), let unit = kilocalories, let sum = try? values.sum?.doubleValue(for: unit) {
                figures.append("\(ReportNumbers.whole(sum)) kcal active")
            } else if type == heartRate, let unit = perMinute, let average = try? values.average?.doubleValue(for: unit) {
                figures.append("average heart rate \(ReportNumbers.whole(average)) bpm")
            }
        }
        return figures
    }
}
