import Foundation
import SalusKit
import SalusModel
import SalusProto

/// The worked example of docs/statistics.md, shared by the in-process and the end-to-end tests:
/// in Europe/Paris, a phone counted 3000 steps 09:00–10:00 and 1200 steps 18:00–18:30 on
/// 20 November 2026; a watch counted 2400 steps 09:30–10:30 and 600 steps 23:30–00:30 across
/// midnight.
package enum StatisticsWalk {
    /// The phone's app id.
    package static let phone = "org.example.phone"
    /// The watch's app id.
    package static let watch = "org.example.watch"
    /// Europe/Paris.
    package static let timeZone = TimeZone(identifier: "Europe/Paris")!

    /// A wall-clock time in Paris in November 2026.
    package static func date(_ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
    }

    /// The same time as microseconds since the epoch (the wire's dates).
    package static func microseconds(_ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int64 {
        Int64(date(day, hour, minute).timeIntervalSince1970 * 1_000_000)
    }

    /// One walk: steps between two times.
    package struct Walk: Sendable {
        package var steps: Double
        package var start: Date
        package var end: Date

        package init(steps: Double, start: Date, end: Date) {
            self.steps = steps
            self.start = start
            self.end = end
        }

        /// As SalusKit saves it.
        package var sample: Sample {
            .quantity(.stepCount, Quantity(value: steps, unit: .count), start: start, end: end)
        }

        /// As a wire sample.
        package var wire: Salus_V1_Sample {
            var sample = Salus_V1_Sample()
            sample.type = "HKQuantityTypeIdentifierStepCount"
            sample.startDate = Int64(start.timeIntervalSince1970 * 1_000_000)
            sample.endDate = Int64(end.timeIntervalSince1970 * 1_000_000)
            sample.quantity.value = steps
            sample.quantity.unit = "count"
            return sample
        }
    }

    /// The phone's walks.
    package static let phoneWalks = [
        Walk(steps: 3000, start: date(20, 9), end: date(20, 10)),
        Walk(steps: 1200, start: date(20, 18), end: date(20, 18, 30)),
    ]

    /// The watch's walks.
    package static let watchWalks = [
        Walk(steps: 2400, start: date(20, 9, 30), end: date(20, 10, 30)),
        Walk(steps: 600, start: date(20, 23, 30), end: date(21, 0, 30)),
    ]

    /// A save request of `walks`.
    package static func saveRequest(_ walks: [Walk]) -> Salus_V1_SaveRequest {
        var request = Salus_V1_SaveRequest()
        request.samples = walks.map(\.wire)
        return request
    }
}

/// Short names for the walk in the suites that use it: `Self.phone`, `Self.paris(20, 9)`,
/// `Self.steps(3000, start, end)`.
package protocol UsesStatisticsWalk {}

extension UsesStatisticsWalk {
    package static var phone: String { StatisticsWalk.phone }
    package static var watch: String { StatisticsWalk.watch }
    package static var paris: TimeZone { StatisticsWalk.timeZone }

    /// A wall-clock time in Paris in November 2026.
    package static func paris(_ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        StatisticsWalk.date(day, hour, minute)
    }

    /// Steps between two times, as SalusKit saves them.
    package static func steps(_ count: Double, _ start: Date, _ end: Date) -> Sample {
        StatisticsWalk.Walk(steps: count, start: start, end: end).sample
    }
}
