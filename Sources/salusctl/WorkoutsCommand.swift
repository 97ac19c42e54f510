import ArgumentParser
import Foundation
import SalusKit
import SalusImport
import SalusModel
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
        let endingAtOrAfter = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let activityType = try type.map { try WorkoutText.activityType($0, registry: registry) }
        let samples: [Sample]
        let alternates: [UUID: [WorkoutAlternateDetail]]
        do {
            samples = try await admin.workouts(endingAtOrAfter: endingAtOrAfter, activityType: activityType)
            alternates = try await admin.workoutAlternates(endingAtOrAfter: endingAtOrAfter)
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
        if json {
            print(WorkoutText.json(samples.map { sample in
                var object = WorkoutText.object(sample, registry: registry)
                object["alternates"] = (alternates[sample.uuid] ?? []).map { WorkoutText.object($0, kept: sample) }
                return object
            }))
            return
        }
        var rows = [["start", "type", "duration", "activities", "source", "also from", "uuid"]]
        for sample in samples {
            guard case .workout(let workout) = sample.value else { continue }
            rows.append([
                sample.startDate.formatted(WorkoutText.localDate), WorkoutText.name(workout.activityType, registry),
                WorkoutText.duration(workout.duration(from: sample.startDate, to: sample.endDate)),
                workout.activities.map { WorkoutText.name($0.activityType, registry) }.joined(separator: ", "),
                sample.sourceRevision.appID,
                (alternates[sample.uuid] ?? []).map(\.sample.sourceRevision.appID).joined(separator: ", "),
                sample.uuid.uuidString.lowercased(),
            ])
        }
        print(rows.count == 1 ? "no workouts" : Table.render(rows))
        if alternates.values.contains(where: { list in list.contains { alternate in samples.contains { $0.uuid == alternate.alternateOf } } }) {
            print("(also from: the same workout recorded by other sources, kept as alternates; salusctl workouts show UUID gives their figures)")
        }
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
        let listing = try await admin.types()
        let registry = Registry(listing)
        let found: WorkoutDetail?
        do {
            found = try await admin.workout(UUID(uuidString: uuid)!, listing: listing)
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
        guard let detail = found else {
            throw CommandFailure("no workout has the UUID \(uuid.lowercased())")
        }
        let (sample, workout) = (detail.sample, detail.workout)
        if json {
            var object = WorkoutText.object(sample, registry: registry)
            object["statistics"] = WorkoutFigureText.jsonObject(detail.figures)
            object["activities"] = zip(object["activities"] as? [[String: Any]] ?? [], detail.activities).map { entry, activity in
                var entry = entry
                entry["statistics"] = WorkoutFigureText.jsonObject(activity.figures)
                if case .number(let swolf) = activity.activity.metadata[MetadataKey.swolfScore] { entry["swolf"] = swolf }
                return entry
            }
            object["events"] = WorkoutText.events(workout)
            object["routes"] = detail.routes.map { route in
                ["uuid": route.sample.uuid.uuidString.lowercased(), "points": route.locations.count, "meters": route.meters] as [String: Any]
            }
            object["alternates"] = detail.alternates.map { WorkoutText.object($0, kept: sample) }
            print(WorkoutText.json(object))
            return
        }
        print("\(WorkoutText.name(workout.activityType, registry)) workout \(sample.uuid.uuidString.lowercased())")
        print("  \(sample.startDate.formatted(WorkoutText.localDate)) – \(sample.endDate.formatted(WorkoutText.localDate)), "
              + "\(WorkoutText.duration(detail.duration)) excluding pauses, from \(sample.sourceRevision.appID)")
        for line in WorkoutFigureText.lines(detail.figures) { print("  \(line)") }
        print("Activities:")
        for (index, leg) in detail.activities.enumerated() {
            let activity = leg.activity
            var line = "  \(index + 1). \(WorkoutText.name(activity.activityType, registry)) "
                + "\(activity.startDate.formatted(WorkoutText.localDate)) – \(leg.end.formatted(WorkoutText.localDate)), "
                + WorkoutText.duration(leg.activeDuration)
            if case .number(let swolf) = activity.metadata[MetadataKey.swolfScore] { line += ", SWOLF \(ReportNumbers.decimal(swolf))" }
            print(line)
            for statistic in WorkoutFigureText.lines(leg.figures) { print("       \(statistic)") }
        }
        if !workout.events.isEmpty {
            print("Events:")
            for event in workout.events {
                var line = "  \(WorkoutText.eventName(event.type)) \(event.startDate.formatted(WorkoutText.localDate))"
                if event.endDate > event.startDate { line += " – \(event.endDate.formatted(WorkoutText.localDate))" }
                if case .number(let swolf) = event.metadata[MetadataKey.swolfScore] { line += ", SWOLF \(ReportNumbers.decimal(swolf))" }
                print(line)
            }
        }
        for route in detail.routes {
            print("Route \(route.sample.uuid.uuidString.lowercased()): \(route.locations.count) points, "
                  + "\(String(format: "%.2f", route.meters / 1000)) km")
        }
        guard !detail.alternates.isEmpty else { return }
        print("Alternates (the same workout from other sources, not counted twice):")
        for alternate in detail.alternates {
            var line = "  from \(alternate.sample.sourceRevision.appID)"
            if let device = alternate.sample.device?.name, !device.isEmpty { line += " (\(device))" }
            line += ": \(alternate.sample.startDate.formatted(WorkoutText.localDate)) – \(alternate.sample.endDate.formatted(WorkoutText.localDate)), "
                + "\(WorkoutText.duration(alternate.duration)), alternate \(alternate.sample.uuid.uuidString.lowercased())"
            print(line)
            for figure in WorkoutFigureText.lines(alternate.figures) { print("       \(figure)") }
            print("     kept: \(alternate.choice(kept: sample))")
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

    /// A workout as JSON, as `salusctl workouts list` prints it; `show` adds statistics, events
    /// and routes.
    static func object(_ sample: Sample, registry: Registry) -> [String: Any] {
        guard case .workout(let workout) = sample.value else { return [:] }
        let format = Date.ISO8601FormatStyle()
        return [
            "uuid": sample.uuid.uuidString.lowercased(),
            "activityType": workout.activityType,
            "activityTypeName": name(workout.activityType, registry),
            "startDate": sample.startDate.formatted(format),
            "endDate": sample.endDate.formatted(format),
            "duration": workout.duration(from: sample.startDate, to: sample.endDate),
            "sourceAppID": sample.sourceRevision.appID,
            "activities": workout.activities.map { activity -> [String: Any] in
                let end = activity.endDate ?? sample.endDate
                return [
                    "uuid": activity.uuid.uuidString.lowercased(), "activityType": activity.activityType,
                    "activityTypeName": name(activity.activityType, registry),
                    "startDate": activity.startDate.formatted(format), "endDate": end.formatted(format),
                    "duration": workout.activeDuration(from: activity.startDate, to: end),
                ]
            },
        ]
    }

    /// An alternate of the workout `kept` as JSON: its source, device, times, figures, and why
    /// the kept one was kept.
    static func object(_ alternate: WorkoutAlternateDetail, kept: Sample) -> [String: Any] {
        let format = Date.ISO8601FormatStyle()
        var object: [String: Any] = [
            "uuid": alternate.sample.uuid.uuidString.lowercased(),
            "alternateOf": alternate.alternateOf.uuidString.lowercased(),
            "sourceAppID": alternate.sample.sourceRevision.appID,
            "sourceName": alternate.sample.sourceRevision.name,
            "startDate": alternate.sample.startDate.formatted(format),
            "endDate": alternate.sample.endDate.formatted(format),
            "duration": alternate.duration,
            "statistics": WorkoutFigureText.jsonObject(alternate.figures),
            "choice": alternate.choice(kept: kept),
        ]
        if let device = alternate.sample.device?.name { object["device"] = device }
        return object
    }

    /// A workout's events as JSON.
    static func events(_ workout: Workout) -> [[String: Any]] {
        let format = Date.ISO8601FormatStyle()
        return workout.events.map { event -> [String: Any] in
            var entry: [String: Any] = [
                "type": event.type, "typeName": eventName(event.type),
                "startDate": event.startDate.formatted(format), "endDate": event.endDate.formatted(format),
            ]
            if case .number(let swolf) = event.metadata[MetadataKey.swolfScore] { entry["swolf"] = swolf }
            return entry
        }
    }

    /// Pretty, key-sorted JSON text.
    static func json(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
