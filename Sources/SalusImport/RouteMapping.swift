import Foundation
import SalusModel

/// A `WorkoutRoute` of an export's `Workout`: where it came from and either its locations
/// (older exports list `<Location>` elements inline) or the side file that holds them
/// (`<FileReference path="/workout-routes/….gpx"/>`).
package struct ImportedRoute: Sendable, Hashable {
    /// The export's line of the `WorkoutRoute` element.
    package var line: Int
    /// The route's source ("Simon’s iPhone") and version.
    package var source: SourceRevision
    /// The recording device, when the export names one.
    package var device: Device?
    /// When the route was saved on the phone.
    package var creationDate: Date?
    /// Inline locations, in the export's order; empty when the route is in a side file.
    package var locations: [RouteLocation]
    /// The side file holding the locations, relative to the export's folder
    /// ("workout-routes/route_2019-06-11_3.00pm.gpx"); nil for inline routes.
    package var file: String?
    /// The route's `MetadataEntry`s, typed; Salus's own exports write the route's sync identifier
    /// here.
    package var metadata: [String: MetadataValue] = [:]
}

extension RecordMapper {
    /// The routes of a `Workout` element. An inline `Location` without a date, latitude or
    /// longitude that parse is refused naming it; CoreLocation's -1 (invalid) course, speed or
    /// accuracy is read as absent. A route with neither locations nor a file reference is
    /// refused. Its `MetadataEntry`s are read as a route's metadata (a value its key's type
    /// refuses is refused naming the entry).
    package func routes(of workout: ExportElement) throws(ImportRefusal) -> [ImportedRoute] {
        var routes: [ImportedRoute] = []
        for node in workout.children(named: "WorkoutRoute") {
            var locations: [RouteLocation] = []
            for (index, location) in node.children(named: "Location").enumerated() {
                guard let latitude = location["latitude"].flatMap(Double.init),
                      let longitude = location["longitude"].flatMap(Double.init)
                else {
                    throw ImportRefusal(
                        line: location.line, field: "WorkoutRoute.Location[\(index)].latitude",
                        value: "\(location["latitude"] ?? "") \(location["longitude"] ?? "")",
                        expected: "a latitude and a longitude in degrees")
                }
                let time = try date(location, "date")
                func known(_ name: String) -> Double? { location[name].flatMap(Double.init).flatMap { $0 < 0 ? nil : $0 } }
                locations.append(
                    RouteLocation(
                        timestamp: time, latitude: latitude, longitude: longitude,
                        altitude: location["altitude"].flatMap(Double.init), horizontalAccuracy: known("horizontalAccuracy"),
                        verticalAccuracy: known("verticalAccuracy"), course: known("course"), speed: known("speed")))
            }
            let file = node.children(named: "FileReference").first?["path"].map(Self.sideFilePath)
            guard !locations.isEmpty || file != nil else {
                throw ImportRefusal(
                    line: node.line, field: "WorkoutRoute", value: "no Location and no FileReference",
                    expected: "inline Location elements or a FileReference to a GPX file")
            }
            var metadata: [String: MetadataValue] = [:]
            if let rules = catalog.rules(for: "HKWorkoutRouteTypeIdentifier") { metadata = try self.metadata(of: node, rules: rules) }
            routes.append(
                ImportedRoute(
                    line: node.line,
                    source: SourceRevision(
                        appID: "", name: node["sourceName"] ?? workout["sourceName"] ?? "",
                        version: node["sourceVersion"]),
                    device: node["device"].flatMap(Self.device), creationDate: node["creationDate"].flatMap(Self.date),
                    locations: locations, file: file, metadata: metadata))
        }
        return routes
    }

    /// A side file's path as the import names it: relative to the export's folder, without the
    /// leading "/" that `FileReference` paths carry ("workout-routes/route_1.gpx").
    package static func sideFilePath(_ text: String) -> String {
        String(text.drop { $0 == "/" })
    }

    /// The route sample of `route` with `locations`, attached to the workout `workout`, with the
    /// route's metadata. Its sync identifier is the one the export wrote for the route (Salus's
    /// own exports write it), else one naming it by its content (count, first and last
    /// location), so importing the same export again keeps the route already there. Why the
    /// written one first: GPX is text, and a location comes back from it changed (`-0.000000`
    /// is read as -0.0 and written as 0; nine decimals are kept), so the content of a route
    /// that went out and came back is not the content it was named by.
    package func routeSample(_ route: ImportedRoute, locations: [RouteLocation], workout: UUID) -> Sample {
        let first = locations.first
        let last = locations.last
        func describe(_ location: RouteLocation?) -> String {
            guard let location else { return "" }
            return "\(location.timestamp.timeIntervalSince1970),\(location.latitude),\(location.longitude)"
        }
        let identifier = "applehealth:route|\(locations.count)|\(describe(first))|\(describe(last))"
        let start = first?.timestamp ?? Date(timeIntervalSince1970: 0)
        var metadata = route.metadata
        if metadata[MetadataKey.syncIdentifier] == nil {
            metadata[MetadataKey.syncIdentifier] = .string(identifier)
            metadata[MetadataKey.syncVersion] = .number(1)
        } else if metadata[MetadataKey.syncVersion] == nil {
            metadata[MetadataKey.syncVersion] = .number(1)
        }
        return Sample(
            type: "HKWorkoutRouteTypeIdentifier", startDate: start, endDate: max(start, last?.timestamp ?? start),
            value: .workoutRoute(WorkoutRouteValue(workoutUUID: workout, locations: locations)), sourceRevision: route.source,
            device: route.device,
            metadata: metadata,
            creationDate: route.creationDate ?? start)
    }
}
