import Foundation
import Testing

@testable import SalusModel

/// Workout routes in the model: time-range lookup, length and rules (GPX is SalusImport's: GPXTests).
@Suite("Workout routes")
struct WorkoutRouteTests {
    static let start = Date(timeIntervalSince1970: 1_795_250_000)  // 2026-11-21T08:33:20Z

    /// A marathon at 1 Hz: 15,000 locations heading north from the equator, 0.00025° (27.8 m) apart.
    static let marathon = WorkoutRoute(locations: (0..<15_000).map { index in
        RouteLocation(
            timestamp: start.addingTimeInterval(Double(index)), latitude: Double(index) * 0.00025, longitude: 0,
            altitude: 10, horizontalAccuracy: 5, verticalAccuracy: 3, course: 0, speed: 2.8)
    })

    @Test("The locations in a time range, by binary search, bounds included")
    func timeRange() {
        let route = Self.marathon
        let slice = route.locations(from: Self.start.addingTimeInterval(3600), to: Self.start.addingTimeInterval(3659))
        #expect(slice.count == 60)
        #expect(slice.first?.timestamp == Self.start.addingTimeInterval(3600))
        #expect(slice.last?.timestamp == Self.start.addingTimeInterval(3659))
        #expect(route.locations(from: Self.start.addingTimeInterval(-10), to: Self.start.addingTimeInterval(-1)).isEmpty)
        #expect(route.locations(from: Self.start.addingTimeInterval(14_999.5), to: Self.start.addingTimeInterval(20_000)).isEmpty)
        #expect(route.locations(from: Self.start.addingTimeInterval(10), to: Self.start).isEmpty)
    }

    @Test("The length is the sum of great-circle steps")
    func length() {
        // 14,999 steps of 0.00025° of latitude along a meridian: 3.74975° × 6,371,008.8 m × π / 180.
        let expected = 3.74975 * 6_371_008.8 * Double.pi / 180
        #expect(abs(Self.marathon.length - expected) < 0.01)
        #expect(WorkoutRoute(locations: []).length == 0)
    }

    @Test("Refused locations name their field and value")
    func rules() {
        #expect(Self.marathon.validationErrors().isEmpty)
        let bad = WorkoutRoute(locations: [
            RouteLocation(timestamp: Self.start, latitude: 91, longitude: 0),
            RouteLocation(
                timestamp: Self.start.addingTimeInterval(-1), latitude: 0, longitude: .nan, horizontalAccuracy: -1, course: 360,
                speed: -2),
        ])
        let errors = bad.validationErrors()
        #expect(errors.map(\.field) == [
            "route.locations[0].latitude", "route.locations[1].longitude", "route.locations[1].horizontalAccuracy",
            "route.locations[1].course", "route.locations[1].speed", "route.locations[1].timestamp",
        ])
        #expect(errors.map(\.reason) == [.valueOutOfRange, .nonFiniteValue, .valueOutOfRange, .valueOutOfRange, .valueOutOfRange, .invalidValue])
        #expect(errors[0].value == "91.0")
        // Two fixes in one second, as Apple's exports have them, are in order.
        let sameSecond = WorkoutRoute(locations: [
            RouteLocation(timestamp: Self.start, latitude: 1, longitude: 1),
            RouteLocation(timestamp: Self.start, latitude: 1.00001, longitude: 1),
        ])
        #expect(sameSecond.validationErrors().isEmpty)
    }
}
