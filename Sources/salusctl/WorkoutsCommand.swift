import ArgumentParser
import Foundation
import SalusKit
import SalusImport
import SalusModel
import SalusProto
import SalusAdmin
import SalusReport

/// `salusctl workouts`: the owner lists workouts, shows one with its activities, events,
/// per-activity statistics and route, and writes a workout's route as GPX.
struct Workouts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List workouts, show one with its activities, events, statistics and route, or write its route as GPX.",
        subcommands: [WorkoutsList.self, WorkoutsShow.self, WorkoutsRoute.self],
        defaultSubcommand: WorkoutsList.self
    )
}

/// `salusctl workouts list`: every app's workouts, oldest first.
struct WorkoutsList: OwnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List workouts, oldest first.",
        discussion: """
            A workout is listed when it ends at or after --since. --type takes an activity type's \
            name (running, swimBikeRun) or HealthKit raw value (37); a workout matches when it or one \
            of its activities has that type, so --type running lists a triathlon too. Durations \
            exclude pauses. Times are shown in local time.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("Only workouts that end at or after this date.", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only workouts with an activity of this type (name or raw value).", valueName: "type"))
    var type: String?

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    func validate() throws {
        _ = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        if let type, type.isEmpty { throw ValidationError("--type: the type is empty; expected a name such as running or a raw value such as 37") }
    }

    func run(admin: AdminClient) async throws {
        let registry = Registry(try await admin.types())
        var predicates: [SamplePredicate] = []
        if let since {
            predicates.append(.date(start: try DateArgument.parse(since, flag: "--since", endOfDay: false), end: nil))
        }
        if let type {
            predicates.append(.workoutActivity(try WorkoutText.activityType(type, registry: registry)))
        }
        let query = SampleQueryDescriptor(
            type: .workout, predicate: predicates.isEmpty ? nil : .and(predicates), sortDescriptors: [.startDate()])
        let samples = try await WorkoutText.fetch(query, admin: admin)
        if json {
            print(WorkoutText.json(samples.map { WorkoutText.object($0, registry: registry, detailed: false) }))
            return
        }
        var rows = [["start", "type", "duration", "activities", "source", "uuid"]]
        for sample in samples {
            guard case .workout(let workout) = sample.value else { continue }
            rows.append([
                sample.startDate.formatted(WorkoutText.localDate), WorkoutText.name(workout.activityType, registry),
                WorkoutText.duration(workout.duration(from: sample.startDate, to: sample.endDate)),
                workout.activities.map { WorkoutText.name($0.activityType, registry) }.joined(separator: ", "),
                sample.sourceRevision.appID, sample.uuid.uuidString.lowercased(),
            ])
        }
        print(rows.count == 1 ? "no workouts" : Table.render(rows))
    }
}

/// `salusctl workouts show UUID`: one workout in full.
struct WorkoutsShow: OwnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a workout: its activities with their statistics, its events.",
        discussion: """
            Statistics are computed from the samples the workout's app saved during each activity, \
            pro-rated at activity boundaries (docs/workouts.md): sums for cumulative types, averages \
            with minimum and maximum for discrete ones, in each type's canonical unit; each is marked \
            "(from samples)". A type with no samples shows the total the workout was saved with, \
            marked "(saved with the workout)": an imported workout's totals are these.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The workout's UUID.", valueName: "uuid"))
    var uuid: String

    @Flag(name: .long, help: "Print a JSON object instead of text.")
    var json = false

    func validate() throws {
        guard UUID(uuidString: uuid) != nil else {
            throw ValidationError("uuid: \"\(uuid)\" is not a UUID; expected one such as 0190c2a0-0000-7000-8000-000000000001")
        }
    }

    func run(admin: AdminClient) async throws {
        let registry = Registry(try await admin.types())
        let id = UUID(uuidString: uuid)!
        let found = try await WorkoutText.fetch(
            SampleQueryDescriptor(type: .workout, predicate: .uuids([id])), admin: admin)
        guard let sample = found.first, case .workout(let workout) = sample.value else {
            throw CommandFailure("no workout has the UUID \(uuid.lowercased())")
        }
        let routes = try await WorkoutText.routes(of: id, admin: admin)
        if json {
            var object = WorkoutText.object(sample, registry: registry, detailed: true)
            object["routes"] = routes.map { route, locations in
                ["uuid": route.uuid.uuidString.lowercased(), "points": locations.count, "meters": WorkoutRoute(locations: locations).length]
                    as [String: Any]
            }
            print(WorkoutText.json(object))
            return
        }
        // The duration the device recorded when the workout kept one (an import's), else the events'.
        let total = workout.duration(from: sample.startDate, to: sample.endDate)
        print("\(WorkoutText.name(workout.activityType, registry)) workout \(sample.uuid.uuidString.lowercased())")
        print("  \(sample.startDate.formatted(WorkoutText.localDate)) – \(sample.endDate.formatted(WorkoutText.localDate)), "
              + "\(WorkoutText.duration(total)) excluding pauses, from \(sample.sourceRevision.appID)")
        for line in WorkoutText.statisticLines(workout.allStatistics, saved: workout.statistics, registry: registry) { print("  \(line)") }
        print("Activities:")
        for (index, activity) in workout.activities.enumerated() {
            let end = activity.endDate ?? sample.endDate
            var line = "  \(index + 1). \(WorkoutText.name(activity.activityType, registry)) "
                + "\(activity.startDate.formatted(WorkoutText.localDate)) – \(end.formatted(WorkoutText.localDate)), "
                + WorkoutText.duration(workout.activeDuration(from: activity.startDate, to: end))
            if case .number(let swolf) = activity.metadata[MetadataKey.swolfScore] { line += ", SWOLF \(WorkoutText.number(swolf))" }
            print(line)
            for statistic in WorkoutText.statisticLines(activity.allStatistics, saved: activity.statistics, registry: registry) { print("       \(statistic)") }
        }
        if !workout.events.isEmpty {
            print("Events:")
            for event in workout.events {
                var line = "  \(WorkoutText.eventName(event.type)) \(event.startDate.formatted(WorkoutText.localDate))"
                if event.endDate > event.startDate { line += " – \(event.endDate.formatted(WorkoutText.localDate))" }
                if case .number(let swolf) = event.metadata[MetadataKey.swolfScore] { line += ", SWOLF \(WorkoutText.number(swolf))" }
                print(line)
            }
        }
        for (route, locations) in routes {
            let kilometers = WorkoutRoute(locations: locations).length / 1000
            print("Route \(route.uuid.uuidString.lowercased()): \(locations.count) points, "
                  + "\(String(format: "%.2f", kilometers)) km")
        }
    }
}

/// `salusctl workouts route UUID`: a workout's route as GPX 1.1, as Apple Health exports it.
struct WorkoutsRoute: OwnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Write a workout's route as GPX 1.1, to a file or to standard output.",
        discussion: """
            The GPX has one track with one segment, each location a trkpt with its elevation, UTC \
            time and, as extensions, speed, course, hAcc and vAcc, as Apple Health writes \
            workout-routes/*.gpx. A workout with several routes writes the first.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The workout's UUID.", valueName: "uuid"))
    var uuid: String

    @Option(name: .long, help: ArgumentHelp("Write the GPX to this file instead of standard output.", valueName: "file"))
    var gpx: String?

    func validate() throws {
        guard UUID(uuidString: uuid) != nil else {
            throw ValidationError("uuid: \"\(uuid)\" is not a UUID; expected one such as 0190c2a0-0000-7000-8000-000000000001")
        }
    }

    func run(admin: AdminClient) async throws {
        let id = UUID(uuidString: uuid)!
        guard let (route, locations) = try await WorkoutText.routes(of: id, admin: admin).first else {
            throw CommandFailure("the workout \(uuid.lowercased()) has no route")
        }
        let name = "Route " + route.startDate.formatted(WorkoutText.localDate)
        let document = GPX.write(locations, name: name)
        if let gpx {
            do {
                try PrivateOutput.write(document, to: gpx)
            } catch {
                throw CommandFailure("--gpx: \(error)")
            }
            print("wrote \(locations.count) points to \(gpx)")
        } else {
            FileHandle.standardOutput.write(document)
        }
    }
}

/// How `salusctl workouts` writes workouts.
enum WorkoutText {
    /// The routes of the workout `workout`, oldest first, each with all its locations.
    static func routes(of workout: UUID, admin: AdminClient) async throws -> [(Sample, [RouteLocation])] {
        do {
            return try await admin.routes(of: workout).map { ($0.route, $0.locations) }
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    /// The samples `query` finds; a refusal becomes the command's failure with its message.
    static func fetch(_ query: SampleQueryDescriptor, admin: AdminClient) async throws -> [Sample] {
        do {
            return try await admin.samples(query)
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    /// Local time, to the second.
    static let localDate = Date.ISO8601FormatStyle(timeZone: .current).year().month().day().time(includingFractionalSeconds: false)
        .timeZone(separator: .omitted)

    /// An activity type's raw value from its name or number; unknown ones are refused.
    static func activityType(_ text: String, registry: Registry) throws -> UInt {
        if let raw = UInt(text) { return raw }
        if let entry = registry.activityNames.first(where: { $0.value.caseInsensitiveCompare(text) == .orderedSame }) {
            return UInt(entry.key)
        }
        throw ValidationError("--type: \"\(text)\" is not a workout activity type; expected a name such as running or swimBikeRun, or a raw value such as 37")
    }

    /// "running", or the raw value when no plugin names it.
    static func name(_ raw: UInt, _ registry: Registry) -> String {
        registry.activityNames[UInt32(clamping: raw)] ?? "\(raw)"
    }

    /// "lap", "pause", ...
    static func eventName(_ raw: Int) -> String {
        WorkoutEventType(rawValue: raw).map { "\($0)" } ?? "event \(raw)"
    }

    /// "1:02:03" or "12:34".
    static func duration(_ seconds: Double) -> String {
        guard let total = Int(rounding: seconds) else { return "\(seconds) s" }
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    /// A number without a needless fraction, at most three decimals.
    static func number(_ value: Double) -> String {
        ReportNumbers.decimal(value)
    }

    /// The unit a figure is printed in: rates per second (the canonical unit of heart rate) per
    /// minute, as people read them; others as they are.
    static func shown(_ quantity: Quantity) -> Quantity {
        let perMinute = SalusUnit.count.divided(by: .minute)
        guard quantity.unit == SalusUnit.count.divided(by: .second), let value = try? quantity.doubleValue(for: perMinute) else {
            return quantity
        }
        return Quantity(value: value, unit: perMinute)
    }

    /// Where a figure comes from: computed from the workout's samples, or given when the workout
    /// was saved (an import's totals, a total an app gave) for a type with no samples.
    enum Origin: String {
        case samples
        case workout

        var label: String { self == .samples ? "from samples" : "saved with the workout" }
    }

    /// Every figure to show, by type: the statistics served (`all`), each from samples or saved
    /// as the daemon marks it (`WorkoutStatistics.fromSamples`), then the main figures (`main`)
    /// of types with none there, which the workout was saved with.
    static func figures(
        _ all: [TypeIdentifier: WorkoutStatistics], saved main: [TypeIdentifier: Quantity], registry: Registry
    ) -> [(type: TypeIdentifier, figures: WorkoutStatistics, origin: Origin)] {
        var result = all.map { (type: $0.key, figures: $0.value, origin: $0.value.fromSamples ? Origin.samples : .workout) }
        for (type, total) in main where all[type] == nil {
            // A cumulative type's total is a sum, a discrete type's an average.
            let cumulative = registry.types.first { $0.identifier == type.rawValue }?.aggregation == .cumulative
            result.append((type, cumulative ? WorkoutStatistics(sum: total) : WorkoutStatistics(average: total), .workout))
        }
        return result.sorted { $0.type.rawValue < $1.type.rawValue }
    }

    /// One line per type: "HeartRate: average 152.3, min 140, max 171 count/min (from samples)",
    /// "DistanceWalkingRunning: 5012.5 m (saved with the workout)".
    static func statisticLines(
        _ statistics: [TypeIdentifier: WorkoutStatistics], saved: [TypeIdentifier: Quantity], registry: Registry
    ) -> [String] {
        figures(statistics, saved: saved, registry: registry).map { type, figures, origin in
            let name = type.rawValue.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            if let sum = figures.sum.map(shown) { return "\(name): \(number(sum.value)) \(sum.unit) (\(origin.label))" }
            let parts = [("average", figures.average), ("min", figures.minimum), ("max", figures.maximum)]
                .compactMap { label, quantity in quantity.map { "\(label) \(number(shown($0).value))" } }
            return "\(name): \(parts.joined(separator: ", ")) \(figures.average.map { shown($0).unit.description } ?? "") (\(origin.label))"
        }
    }

    /// Statistics as JSON: type → {sum | average, minimum, maximum, unit, from: "samples" | "workout"}.
    static func statisticsObject(
        _ statistics: [TypeIdentifier: WorkoutStatistics], saved: [TypeIdentifier: Quantity], registry: Registry
    ) -> [String: Any] {
        var result: [String: Any] = [:]
        for (type, figures, origin) in figures(statistics, saved: saved, registry: registry) {
            var object: [String: Any] = ["from": origin.rawValue]
            if let sum = figures.sum { object["sum"] = sum.value; object["unit"] = sum.unit.description }
            if let average = figures.average { object["average"] = average.value; object["unit"] = average.unit.description }
            if let minimum = figures.minimum { object["minimum"] = minimum.value }
            if let maximum = figures.maximum { object["maximum"] = maximum.value }
            result[type.rawValue] = object
        }
        return result
    }

    /// A workout as JSON; `detailed` adds activities with statistics and events.
    static func object(_ sample: Sample, registry: Registry, detailed: Bool) -> [String: Any] {
        guard case .workout(let workout) = sample.value else { return [:] }
        let format = Date.ISO8601FormatStyle()
        var object: [String: Any] = [
            "uuid": sample.uuid.uuidString.lowercased(),
            "activityType": workout.activityType,
            "activityTypeName": name(workout.activityType, registry),
            "startDate": sample.startDate.formatted(format),
            "endDate": sample.endDate.formatted(format),
            "duration": workout.duration(from: sample.startDate, to: sample.endDate),
            "sourceAppID": sample.sourceRevision.appID,
            "activities": workout.activities.map { activity -> [String: Any] in
                let end = activity.endDate ?? sample.endDate
                var entry: [String: Any] = [
                    "uuid": activity.uuid.uuidString.lowercased(), "activityType": activity.activityType,
                    "activityTypeName": name(activity.activityType, registry),
                    "startDate": activity.startDate.formatted(format), "endDate": end.formatted(format),
                    "duration": workout.activeDuration(from: activity.startDate, to: end),
                ]
                if detailed {
                    entry["statistics"] = statisticsObject(activity.allStatistics, saved: activity.statistics, registry: registry)
                    if case .number(let swolf) = activity.metadata[MetadataKey.swolfScore] { entry["swolf"] = swolf }
                }
                return entry
            },
        ]
        if detailed {
            object["statistics"] = statisticsObject(workout.allStatistics, saved: workout.statistics, registry: registry)
            object["events"] = workout.events.map { event -> [String: Any] in
                var entry: [String: Any] = [
                    "type": event.type, "typeName": eventName(event.type),
                    "startDate": event.startDate.formatted(format), "endDate": event.endDate.formatted(format),
                ]
                if case .number(let swolf) = event.metadata[MetadataKey.swolfScore] { entry["swolf"] = swolf }
                return entry
            }
        }
        return object
    }

    /// Pretty, key-sorted JSON text.
    static func json(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
