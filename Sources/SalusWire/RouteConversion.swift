import Foundation
import SalusModel
import SalusProto

extension WorkoutRouteValue: WireConvertibleValue {
    /// The most locations a route carries inline in a `salus.v1.Sample` (Store/Save): 1,000.
    /// Larger routes are streamed with `salus.v1.Routes/SaveRoute`, so no Save request comes
    /// near the frame size limit.
    package static let inlineLocationLimit = 1_000

    /// The model value of `wire`; a workout UUID that is not 16 bytes or more than
    /// `inlineLocationLimit` locations are refused naming the field under `path`. The count is
    /// the number of locations given, or the wire's count when it carries none (a route read
    /// from the daemon).
    package init(wire: Salus_V1_WorkoutRoute, path: String) throws(ValidationError) {
        guard let workout = WireUUID.uuid(wire.workoutUuid) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).workoutUuid", value: "\(wire.workoutUuid.count) bytes",
                expected: "16 bytes: the UUID of the workout the route belongs to")
        }
        guard wire.locations.count <= Self.inlineLocationLimit else {
            throw ValidationError(
                reason: .valueOutOfRange, field: "\(path).locations", value: "\(wire.locations.count) locations",
                expected: "at most \(Self.inlineLocationLimit) locations inline; stream larger routes with salus.v1.Routes/SaveRoute")
        }
        self.init(workoutUUID: workout, locations: wire.locations.map(RouteLocation.init(wire:)))
        if wire.locations.isEmpty { locationCount = Int(clamping: wire.locationCount) }
    }

    /// The wire form: the workout, the count and any locations the value carries.
    package var wire: Salus_V1_WorkoutRoute {
        var wire = Salus_V1_WorkoutRoute()
        wire.workoutUuid = WireUUID.bytes(workoutUUID)
        wire.locationCount = UInt64(max(0, locationCount))
        wire.locations = locations.map(\.wire)
        return wire
    }
}

extension RouteLocation {
    /// The model location of `wire`; unset optional fields are nil. Its rules are checked with
    /// the sample (`WorkoutRoute.validationErrors(at:)`).
    package init(wire: Salus_V1_RouteLocation) {
        self.init(
            timestamp: WireDate.date(wire.timestamp), latitude: wire.latitude, longitude: wire.longitude,
            altitude: wire.optionalAltitude != nil ? wire.altitude : nil,
            horizontalAccuracy: wire.optionalHorizontalAccuracy != nil ? wire.horizontalAccuracy : nil,
            verticalAccuracy: wire.optionalVerticalAccuracy != nil ? wire.verticalAccuracy : nil,
            course: wire.optionalCourse != nil ? wire.course : nil,
            speed: wire.optionalSpeed != nil ? wire.speed : nil)
    }

    /// The wire form.
    package var wire: Salus_V1_RouteLocation {
        var wire = Salus_V1_RouteLocation()
        wire.timestamp = WireDate.microseconds(timestamp)
        wire.latitude = latitude
        wire.longitude = longitude
        if let altitude { wire.altitude = altitude }
        if let horizontalAccuracy { wire.horizontalAccuracy = horizontalAccuracy }
        if let verticalAccuracy { wire.verticalAccuracy = verticalAccuracy }
        if let course { wire.course = course }
        if let speed { wire.speed = speed }
        return wire
    }
}
