// Triathlon: an example app that records a swim-bike-run through a workout session and its
// builder, using SalusKit, then reads back what was saved.
//
//   Triathlon [--socket PATH]
//
// It asks to write and read workouts, heart rate, distances and swim strokes; starts a
// swimBikeRun (82) session that a second connection mirrors; records a 1500 m pool swim in
// 50 m laps (each a lap event with its stroke style, a distance and a stroke count), a
// transition (83), a 40 km ride with a pause, a second transition and a 10 km run, with heart
// rate every minute; stops and ends the session and finishes the builder (one transaction).
// Then it prints each activity's average heart rate and distance as the daemon computed them,
// and the running activities of workouts whose running average heart rate is over 150 count/min.
//
// The workout happened over the last 2 h 10 min: its dates are simulated, the order of calls
// is that of a live recording.
import Foundation
import SalusKit
import SalusModel

let usage = """
    usage: Triathlon [--socket PATH]
      records a swim-bike-run with transitions, laps, heart rate and distances through a workout
      session, then prints per-activity averages and the running activities of workouts with an
      average heart rate over 150 count/min
    --socket PATH: default $SALUS_SOCKET, else the daemon's app socket
    """

let appID = "org.example.triathlon"
let perMinute = SalusUnit.count.divided(by: .minute)
let heartRate: QuantityTypeIdentifier = "HKQuantityTypeIdentifierHeartRate"
let swimDistance: QuantityTypeIdentifier = "HKQuantityTypeIdentifierDistanceSwimming"
let strokes: QuantityTypeIdentifier = "HKQuantityTypeIdentifierSwimmingStrokeCount"
let rideDistance: QuantityTypeIdentifier = "HKQuantityTypeIdentifierDistanceCycling"
let runDistance: QuantityTypeIdentifier = "HKQuantityTypeIdentifierDistanceWalkingRunning"

/// The legs, in seconds from the start: (activity type, start, end).
let legs: [(type: UInt, start: TimeInterval, end: TimeInterval)] = [
    (WorkoutActivityType.swimming, 0, 1200),
    (WorkoutActivityType.transition, 1200, 1380),
    (WorkoutActivityType.cycling, 1380, 4980),
    (WorkoutActivityType.transition, 4980, 5100),
    (WorkoutActivityType.running, 5100, 7800),
]

/// `HKSwimmingStrokeStyle` freestyle (2).
let freestyle = 2.0

/// The heart rate the simulated athlete has at `seconds`: about 140 swimming, 146 riding,
/// 158 running.
func beatsPerMinute(at seconds: TimeInterval) -> Double {
    let wobble = Double(Int(seconds / 60) % 5) - 2
    switch seconds {
    case ..<1380: return 140 + wobble
    case ..<5100: return 146 + wobble
    default: return 158 + wobble
    }
}

func name(_ activityType: UInt) -> String {
    switch activityType {
    case WorkoutActivityType.swimming: "swimming"
    case WorkoutActivityType.cycling: "cycling"
    case WorkoutActivityType.running: "running"
    case WorkoutActivityType.transition: "transition"
    case WorkoutActivityType.swimBikeRun: "swimBikeRun"
    default: "type \(activityType)"
    }
}

func clock(_ seconds: TimeInterval) -> String {
    let whole = Int(seconds.rounded())
    return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
}

/// "141.3 count/min", or "none".
func average(_ statistics: WorkoutStatistics?) -> String {
    guard let value = try? statistics?.average?.doubleValue(for: perMinute) else { return "none" }
    return String(format: "%.1f count/min", value)
}

/// "1500 m", or "none".
func total(_ statistics: [TypeIdentifier: WorkoutStatistics], _ types: [QuantityTypeIdentifier]) -> String {
    for type in types {
        if let meters = try? statistics[TypeIdentifier(rawValue: type.rawValue)]?.sum?.doubleValue(for: .meter) {
            return String(format: "%.0f m", meters)
        }
    }
    return "none"
}

func run() async throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains(where: { ["-h", "--help", "help"].contains($0) }) {
        print(usage)
        return
    }
    var socket: String?
    if arguments.count == 2 && arguments[0] == "--socket" {
        socket = arguments[1]
    } else if !arguments.isEmpty {
        throw SalusError(code: .invalidArgument, message: "\(arguments[0]): not an option\n\(usage)")
    }

    let store = try await HealthStore.connect(socketPath: socket, appID: appID, appName: "Triathlon", appVersion: "1.0")
    let types: Set<SampleType> = [
        .workout, .quantity(heartRate), .quantity(swimDistance), .quantity(strokes), .quantity(rideDistance),
        .quantity(runDistance), .workoutRoute,
    ]
    try await store.requestAuthorization(toShare: types, read: types)

    let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 7800)
    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }
    print("recording a swim-bike-run from \(start.formatted(.iso8601))")

    let session = try await WorkoutSession.create(
        healthStore: store, activityType: WorkoutActivityType.swimBikeRun,
        configuration: WorkoutConfiguration(locationType: .outdoor))
    // A second device of the app mirrors the session: it sees every state.
    let mirror = try await HealthStore.connect(socketPath: socket, appID: appID, appName: "Triathlon", appVersion: "1.0")
    let mirrored = WorkoutSession(healthStore: mirror, id: session.id)
    let (following, follows) = AsyncStream.makeStream(of: Void.self)
    let seen = Task {
        var updates = mirrored.stateChanges().makeAsyncIterator()
        _ = try await updates.next()  // the session as it is, before any move
        follows.finish()
        var states: [String] = []
        while let update = try await updates.next() {
            guard update.from != nil else { continue }  // live statistics, not a move
            states.append("\(update.info.state)")
        }
        return states
    }
    for await _ in following {}

    try await session.prepare(at: at(0))
    try await session.startActivity(at: at(0))
    // The ride and the run are outdoors: one location a second, streamed as the route of the
    // workout once it is saved.
    let route = WorkoutRouteBuilder(healthStore: store)
    guard let builder = try await session.builder() else {
        throw SalusError(code: .internal, message: "the session started without a builder")
    }
    for leg in legs {
        var configuration = WorkoutConfiguration(locationType: .outdoor)
        if leg.type == WorkoutActivityType.swimming {
            configuration = WorkoutConfiguration(
                locationType: .outdoor, swimmingLocationType: .pool, lapLength: Quantity(value: 50, unit: .meter))
        }
        try await builder.beginActivity(leg.type, configuration: configuration, at: at(leg.start))
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        switch leg.type {
        case WorkoutActivityType.swimming:
            for lap in 0..<30 {
                let lapStart = leg.start + Double(lap) * 40
                events.append(WorkoutEvent(
                    .lap, startDate: at(lapStart), endDate: at(lapStart + 40),
                    metadata: [MetadataKey.swimmingStrokeStyle: .number(freestyle)]))
                samples.append(.quantity(swimDistance, Quantity(value: 50, unit: .meter), start: at(lapStart), end: at(lapStart + 40)))
                samples.append(.quantity(strokes, Quantity(value: 20, unit: .count), start: at(lapStart), end: at(lapStart + 40)))
            }
        case WorkoutActivityType.cycling:
            for part in 0..<12 {
                let partStart = leg.start + Double(part) * 300
                samples.append(.quantity(
                    rideDistance, Quantity(value: 40.0 / 12, unit: .kilometer), start: at(partStart), end: at(partStart + 300)))
            }
        case WorkoutActivityType.running:
            for part in 0..<9 {
                let partStart = leg.start + Double(part) * 300
                samples.append(.quantity(
                    runDistance, Quantity(value: 10.0 / 9, unit: .kilometer), start: at(partStart), end: at(partStart + 300)))
            }
        default:
            break
        }
        for minute in stride(from: leg.start, to: leg.end, by: 60) {
            samples.append(.quantity(heartRate, Quantity(value: beatsPerMinute(at: minute), unit: perMinute), start: at(minute)))
        }
        if leg.type == WorkoutActivityType.cycling || leg.type == WorkoutActivityType.running {
            let cycling = leg.type == WorkoutActivityType.cycling
            route.insertRouteData(locations(
                after: start, from: leg.start, to: leg.end, metresPerSecond: cycling ? 40_000 / 3600 : 10_000 / 2700,
                beyond: cycling ? 0 : 40_000))
        }
        if !events.isEmpty { try await builder.addWorkoutEvents(events) }
        let snapshot = try await builder.add(samples)
        if leg.type == WorkoutActivityType.cycling {
            // A stop at a red light: pause and resume through the session.
            try await session.pause(at: at(3000))
            try await session.resume(at: at(3060))
        }
        print("  \(name(leg.type)) recorded: \(snapshot.sampleCount) samples so far, heart rate \(average(snapshot.workout.allStatistics[TypeIdentifier(rawValue: heartRate.rawValue)]))")
    }
    try await session.stopActivity(at: at(7800))
    try await session.end(at: at(7800))
    print("elapsed \(clock(try await builder.elapsedTime(at: at(7800)))) (a 1:00 pause left out)")
    let saved = try await builder.finishWorkout()
    print("mirror saw: \(try await seen.value.joined(separator: ", "))")
    await mirror.close()

    guard case .workout(let workout) = saved.value else {
        throw SalusError(code: .internal, message: "finishing returned a \(saved.kind) sample")
    }
    print("saved workout \(saved.uuid.uuidString.lowercased()): \(name(workout.activityType)), \(workout.activities.count) activities, \(workout.events.count) events")
    let savedRoute = try await route.finishRoute(with: saved.uuid)
    let readBack = WorkoutRoute(locations: try await store.routeLocations(of: savedRoute.uuid).collect())
    print(String(format: "route \(savedRoute.uuid.uuidString.lowercased()): \(readBack.locations.count) locations, %.1f km", readBack.length / 1000))
    for (index, activity) in workout.activities.enumerated() {
        let heart = activity.allStatistics[TypeIdentifier(rawValue: heartRate.rawValue)]
        print(
            "  activity[\(index)] \(name(activity.activityType)): average heart rate \(average(heart)), distance "
                + total(activity.allStatistics, [swimDistance, rideDistance, runDistance])
                + (activity.metadata[MetadataKey.swolfScore]?.numberValue.map { String(format: ", SWOLF %.1f", $0) } ?? ""))
    }

    let hard = SampleQueryDescriptor(
        type: .workout,
        predicate: .workoutActivityStatistic(
            WorkoutActivityType.running, TypeIdentifier(rawValue: heartRate.rawValue), .average, .greaterThan,
            Quantity(value: 150, unit: perMinute)),
        sortDescriptors: [.startDate()])
    let matching = try await hard.result(for: store)
    print("running activities of workouts with average heart rate over 150 count/min: \(matching.count) workout\(matching.count == 1 ? "" : "s")")
    for sample in matching {
        guard case .workout(let found) = sample.value else { continue }
        for activity in found.activities where activity.activityType == WorkoutActivityType.running {
            let end = activity.endDate ?? sample.endDate
            print(
                "  \(sample.uuid.uuidString.lowercased()) running \(clock(end.timeIntervalSince(activity.startDate))): "
                    + "average heart rate \(average(activity.allStatistics[TypeIdentifier(rawValue: heartRate.rawValue)]))")
        }
    }
    await store.close()
}

/// One location a second from `from` to `to` seconds after `start`, heading north-east at
/// `metresPerSecond` from `beyond` metres past the first transition area (a degree of latitude
/// is about 111.2 km).
func locations(after start: Date, from: TimeInterval, to: TimeInterval, metresPerSecond: Double, beyond: Double) -> [RouteLocation] {
    let origin = (latitude: 46.2044, longitude: 6.1432)
    return stride(from: from, to: to, by: 1).map { second in
        let metres = beyond + (second - from) * metresPerSecond
        let degrees = metres / 111_200 / 2.squareRoot()
        return RouteLocation(
            timestamp: start.addingTimeInterval(second), latitude: origin.latitude + degrees,
            longitude: origin.longitude + degrees / cos(origin.latitude * .pi / 180), altitude: 375,
            horizontalAccuracy: 4, verticalAccuracy: 3, course: 45, speed: metresPerSecond)
    }
}

do {
    try await run()
} catch let error as SalusError {
    FileHandle.standardError.write(Data("triathlon: \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("triathlon: \(error)\n".utf8))
    exit(1)
}
