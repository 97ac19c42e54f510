import Foundation
import SalusKit
import SalusModel

/// A triathlon with heart rates, shared by the in-process and the end-to-end tests of
/// `salusctl workouts`: swim 0–900 s, bike 900–2400 s, run 2400–3600 s from `start`, a minute's
/// pause at 1000 s; heart rates 130 (swim), 150 (bike), 160 and 170 (run) count/min; 10 km run.
/// Each leg's average heart rate is 130, 150 and 165 count/min.
package enum TriathlonFixture {
    /// The app that records it.
    package static let app = "org.example.triathlon"
    /// 2026-11-21T08:33:20Z.
    package static let start = Date(timeIntervalSince1970: 1_795_250_000)

    /// `start` plus `seconds`.
    package static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// The workout first, then its heart-rate and distance samples.
    package static var samples: [Sample] {
        let perMinute = SalusUnit.count.divided(by: .minute)
        let triathlon = Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: at(0), endDate: at(3600),
            value: .workout(Workout(
                activityType: WorkoutActivityType.swimBikeRun,
                events: [WorkoutEvent(.pause, startDate: at(1000)), WorkoutEvent(.resume, startDate: at(1060))],
                activities: [
                    WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: at(0), endDate: at(900)),
                    WorkoutActivity(activityType: WorkoutActivityType.cycling, startDate: at(900), endDate: at(2400)),
                    WorkoutActivity(activityType: WorkoutActivityType.running, startDate: at(2400), endDate: at(3600)),
                ])),
            sourceRevision: Sample.unsavedSource)
        return [
            triathlon,
            .quantity(.heartRate, Quantity(value: 130, unit: perMinute), start: at(400)),
            .quantity(.heartRate, Quantity(value: 150, unit: perMinute), start: at(1500)),
            .quantity(.heartRate, Quantity(value: 160, unit: perMinute), start: at(3000)),
            .quantity(.heartRate, Quantity(value: 170, unit: perMinute), start: at(3300)),
            .quantity(.distanceWalkingRunning, Quantity(value: 10, unit: .kilometer), start: at(2400), end: at(3600)),
        ]
    }
}
