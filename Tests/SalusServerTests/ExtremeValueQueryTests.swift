import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Numbers at the edges of what a `double` or an `int64` holds, sent in predicates by a
/// registered app that holds no permission at all: each is refused with INVALID_ARGUMENT naming
/// the field, or answered, and the daemon serves on (docs/reliability.md: an error, never a crash).
@Suite("Predicates with extreme values")
struct ExtremeValueQueryTests {
    static let workout = "HKWorkoutTypeIdentifier"
    static let app = "org.example.stranger"

    /// A registered app with no grants, and the owner, who saved one workout through an app of
    /// its own (so that the queries have something to scan).
    static func start() async throws -> (ServerHarness, owner: RPCClient, stranger: RPCClient) {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, app)
        try await Authz.register(owner, "org.example.runner", type: workout, read: .granted, share: .granted)
        let runner = try await Authz.app(server, "org.example.runner")
        var sample = Salus_V1_Sample()
        sample.type = workout
        sample.startDate = 1_700_000_000_000_000
        sample.endDate = sample.startDate + 1_800_000_000
        sample.workout.activityType = 37
        _ = try await Authz.save(runner, [sample])
        await runner.close()
        return (server, owner, try await Authz.app(server, app))
    }

    static func duration(_ comparison: Salus_V1_ComparisonOperator, _ seconds: Double) -> Salus_V1_Predicate {
        var predicate = Salus_V1_Predicate()
        predicate.workout.duration.operator = comparison
        predicate.workout.duration.seconds = seconds
        return predicate
    }

    static func activityDuration(_ comparison: Salus_V1_ComparisonOperator, _ seconds: Double) -> Salus_V1_Predicate {
        var predicate = Salus_V1_Predicate()
        predicate.workout.activity.activityType = 37
        predicate.workout.activity.duration.operator = comparison
        predicate.workout.activity.duration.seconds = seconds
        return predicate
    }

    static func querySamples(_ client: RPCClient, _ predicate: Salus_V1_Predicate, type: String = workout) async throws -> Int {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        request.predicate = predicate
        var count = 0
        for try await batch in try client.serverStreaming(
            SalusMethods.Store.querySamples, request: request)
        {
            count += batch.samples.count
        }
        return count
    }

    static func querySources(_ client: RPCClient, _ predicate: Salus_V1_Predicate) async throws {
        var request = Salus_V1_SourceQueryRequest()
        request.type = workout
        request.predicate = predicate
        let _: Salus_V1_SourceQueryResponse = try await client.unary(SalusMethods.Store.querySources, request: request)
    }

    static func queryAnchored(_ client: RPCClient, _ predicate: Salus_V1_Predicate) async throws {
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Authz.descriptor(workout)
        descriptor.predicate = predicate
        request.descriptors = [descriptor]
        for try await _ in try client.serverStreaming(
            SalusMethods.Store.queryAnchored, request: request)
        {}
    }

    /// Each predicate and the end of the field path its refusal names (the predicate as the app
    /// wrote it: `refusalsTellNothing` checks the path is the same for every app).
    static let outOfRange: [(predicate: Salus_V1_Predicate, field: String)] = [
        (duration(.greaterThan, 1e300), "workout.duration.seconds: got 1e+300"),
        (duration(.lessThan, -1e300), "workout.duration.seconds: got -1e+300"),
        (duration(.greaterThanOrEqual, .greatestFiniteMagnitude), "workout.duration.seconds: got 1.7976931348623157e+308"),
        // Just past what microseconds in an int64 hold.
        (duration(.equal, 9.3e12), "workout.duration.seconds: got 9300000000000.0"),
        (activityDuration(.greaterThan, 1e300), "workout.activity.duration.seconds: got 1e+300"),
        (activityDuration(.lessThanOrEqual, -1e300), "workout.activity.duration.seconds: got -1e+300"),
    ]

    @Test("A workout or activity duration of ±1e300 s is refused naming the field, in every query that takes a predicate")
    func durations() async throws {
        let (server, owner, stranger) = try await Self.start()
        for (predicate, field) in Self.outOfRange {
            for (call, run) in [
                ("QuerySamples", { _ = try await Self.querySamples(stranger, predicate) }),
                ("QuerySources", { try await Self.querySources(stranger, predicate) }),
                ("QueryAnchored", { try await Self.queryAnchored(stranger, predicate) }),
            ] as [(String, () async throws -> Void)] {
                let error = await Authz.error(run)
                #expect(error?.code == .invalidArgument, "\(call) \(field): \(String(describing: error))")
                #expect(error?.message.contains(field) == true, "\(call): \(error?.message ?? "no error") should name \(field)")
            }
        }
        // The daemon serves on, and a duration within range is answered (the stranger sees
        // nothing; the owner sees the 30-minute workout).
        #expect(try await Self.querySamples(stranger, Self.duration(.greaterThan, 60)) == 0)
        #expect(try await Self.querySamples(owner, Self.duration(.greaterThan, 60)) == 1)
        #expect(try await Self.querySamples(owner, Self.duration(.lessThan, 9e12)) == 1)
        #expect(try await Self.querySamples(owner, Self.activityDuration(.greaterThan, -9e12)) == 1)
        await stranger.close()
        await owner.close()
        await server.stop()
    }

    static let heartRate = "HKQuantityTypeIdentifierHeartRate"

    static func statistic(_ type: String, unit: String, activity: Bool = false) -> Salus_V1_Predicate {
        var comparison = Salus_V1_WorkoutStatisticComparison()
        comparison.quantityType = type
        comparison.statistic = .average
        comparison.operator = .greaterThan
        comparison.quantity.value = 100
        comparison.quantity.unit = unit
        var predicate = Salus_V1_Predicate()
        if activity {
            predicate.workout.activity.statistic = comparison
        } else {
            predicate.workout.statistic = comparison
        }
        return predicate
    }

    @Test("A bad predicate gets the same error whether the app may read what it tests or not: a refusal never tells an app it was denied")
    func refusalsTellNothing() async throws {
        let (server, owner, stranger) = try await Self.start()
        // Reads workouts and heart rate; reads workouts only; shares workouts only (reads its own).
        try await Authz.register(owner, "org.example.reader", type: Self.workout, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.reader", Self.heartRate, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.reader", Authz.steps, read: .granted, share: nil)
        try await Authz.register(owner, "org.example.halfreader", type: Self.workout, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.halfreader", Self.heartRate, read: .denied, share: nil)
        try await Authz.register(owner, "org.example.writer", type: Self.workout, read: .denied, share: .granted)
        let readers = [
            ("reads all", try await Authz.app(server, "org.example.reader")),
            ("denied heart rate", try await Authz.app(server, "org.example.halfreader")),
            ("share only", try await Authz.app(server, "org.example.writer")),
            ("no permission", stranger),
        ]
        var malformed = Self.outOfRange.map(\.predicate)
        // A heart-rate statistic in a unit of mass, on the workout and on an activity, alone and nested.
        let badUnit = Self.statistic(Self.heartRate, unit: "kg")
        var nested = Salus_V1_Predicate()
        nested.not.not.and.predicates = [Self.duration(.greaterThan, 60), Self.statistic(Self.heartRate, unit: "kg", activity: true)]
        malformed += [badUnit, Self.statistic(Self.heartRate, unit: "kg", activity: true), nested]
        for predicate in malformed {
            for (call, run) in [
                ("QuerySamples", { (client: RPCClient) in _ = try await Self.querySamples(client, predicate) }),
                ("QuerySources", { (client: RPCClient) in try await Self.querySources(client, predicate) }),
                ("QueryAnchored", { (client: RPCClient) in try await Self.queryAnchored(client, predicate) }),
            ] as [(String, (RPCClient) async throws -> Void)] {
                var errors: [(String, RPCError?)] = []
                for (name, client) in readers {
                    errors.append((name, await Authz.error { try await run(client) }))
                }
                #expect(errors[0].1?.code == .invalidArgument, "\(call): \(String(describing: errors[0].1))")
                for (name, error) in errors.dropFirst() {
                    #expect(error == errors[0].1, "\(call) as \(name): \(String(describing: error)) differs from \(String(describing: errors[0].1))")
                }
            }
        }
        // Statistics: a quantity in a unit of another dimension.
        var statistics = Salus_V1_StatisticsRequest()
        statistics.type = Authz.steps
        statistics.options = [.cumulativeSum]
        statistics.predicate.quantity.operator = .greaterThan
        statistics.predicate.quantity.quantity.value = 1
        statistics.predicate.quantity.quantity.unit = "kg"
        var errors: [RPCError?] = []
        for (_, client) in readers {
            errors.append(await Authz.error {
                let _: Salus_V1_StatisticsResponse = try await client.unary(SalusMethods.Statistics.query, request: statistics)
            })
        }
        #expect(errors[0]?.code == .invalidArgument, "\(String(describing: errors[0]))")
        #expect(Set(errors).count == 1, "\(errors)")
        for (_, client) in readers { await client.close() }
        await owner.close()
        await server.stop()
    }

    @Test("Date windows at the ends of int64 microseconds are answered, not a crash")
    func extremeDates() async throws {
        let (server, owner, stranger) = try await Self.start()
        for (start, end) in [(Int64.min, Int64.max), (Int64.min, Int64.min), (Int64.max, Int64.max), (0, Int64.max)] {
            for strictStart in [false, true] {
                var predicate = Salus_V1_Predicate()
                predicate.dateWindow.startDate = start
                predicate.dateWindow.endDate = end
                predicate.dateWindow.strictStartDate = strictStart
                let expected = start <= 1_700_000_000_000_000 && end > 1_700_000_000_000_000 ? 1 : 0
                #expect(try await Self.querySamples(owner, predicate) == expected, "\(start)...\(end)")
                #expect(try await Self.querySamples(stranger, predicate) == 0)
                try await Self.querySources(stranger, predicate)
            }
        }
        var statistics = Salus_V1_StatisticsRequest()
        statistics.type = Authz.steps
        statistics.options = [.cumulativeSum]
        statistics.predicate.dateWindow.startDate = Int64.min
        statistics.predicate.dateWindow.endDate = Int64.max
        let answer: Salus_V1_StatisticsResponse = try await stranger.unary(SalusMethods.Statistics.query, request: statistics)
        #expect(answer.statistics.values.optionalSum == nil)
        await stranger.close()
        await owner.close()
        await server.stop()
    }
}
