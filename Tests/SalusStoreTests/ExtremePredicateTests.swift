import Foundation
import SalusModel
import SalusStore
import Testing

/// Predicates holding numbers at the edges of a `Double` and of the store's int64 microseconds,
/// compiled and run by the store: each is refused naming the node, or answered as its meaning
/// says, never a trap (docs/reliability.md).
@Suite("Predicates with extreme values, in the store")
struct ExtremePredicateTests {
    /// A 30-minute run (one activity) and a step sample, at `Fixtures.base`.
    static func populate(_ store: SampleStore) async throws {
        let run = Sample(
            type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(1800),
            value: .workout(Workout(activityType: 37, activities: [
                WorkoutActivity(activityType: 37, startDate: Fixtures.at(0), endDate: Fixtures.at(1800))
            ])),
            sourceRevision: Fixtures.app)
        _ = try await store.save([run, Fixtures.quantity(100, start: 0, end: 60)], source: Fixtures.app)
    }

    /// Runs `predicate` over `type` as a sample query, an anchored query and a sources query;
    /// the sample query's count, or the field of the invalid-argument error all three threw.
    static func run(_ store: SampleStore, _ type: TypeIdentifier, _ predicate: SamplePredicate) async -> Result<Int, StoreError> {
        var results: [Result<Int, StoreError>] = []
        do {
            results.append(.success(try await store.all(type, predicate).count))
        } catch let error as StoreError {
            results.append(.failure(error))
        } catch {
            Issue.record("unexpected \(error)")
        }
        for other in [
            { _ = try await store.anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: nil) },
            { _ = try await store.sources(type: type, matching: predicate) },
        ] as [() async throws -> Void] {
            do {
                try await other()
                if case .failure(let error) = results[0] { Issue.record("the sample query threw \(error), another did not") }
            } catch let error as StoreError {
                #expect(error.code == .invalidArgument)
                if case .success = results[0] { Issue.record("the sample query answered, another threw \(error)") }
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        return results[0]
    }

    static func refused(_ result: Result<Int, StoreError>, naming field: String) -> Bool {
        guard case .failure(let error) = result else { return false }
        return error.code == .invalidArgument && error.field == field
    }

    @Test("Workout and activity durations past what int64 microseconds hold are refused naming the node", arguments: [
        1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9.3e12, -9.3e12,
    ])
    func durations(seconds: Double) async throws {
        let temporary = try await TemporaryStore.make()
        try await Self.populate(temporary.store)
        for comparison in ComparisonOperator.allCases {
            let workout = await Self.run(temporary.store, Fixtures.workout, .workoutDuration(comparison, seconds))
            #expect(Self.refused(workout, naming: "predicate.workout.duration.seconds"), "\(comparison) \(seconds): \(workout)")
            let activity = await Self.run(
                temporary.store, Fixtures.workout,
                .workout(.activity(WorkoutActivityTest(activityType: 37, duration: (comparison, seconds)))))
            #expect(Self.refused(activity, naming: "predicate.workout.activity.duration.seconds"), "\(comparison) \(seconds): \(activity)")
            // Nested, the path names the node.
            let nested = await Self.run(
                temporary.store, Fixtures.workout, .not(.or([.workoutActivityType(37), .workoutDuration(comparison, seconds)])))
            #expect(Self.refused(nested, naming: "predicate.not.or[1].workout.duration.seconds"), "\(nested)")
        }
    }

    @Test("Durations within range, subnormal and at the int64 edge, are answered as they read")
    func durationsInRange() async throws {
        let temporary = try await TemporaryStore.make()
        try await Self.populate(temporary.store)
        let store = temporary.store
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.greaterThan, 9.2e12)).get() == 0)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.lessThan, 9.2e12)).get() == 1)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.greaterThan, -9.2e12)).get() == 1)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.greaterThan, .leastNonzeroMagnitude)).get() == 1)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.equal, -.leastNonzeroMagnitude)).get() == 0)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.equal, 1800)).get() == 1)
        #expect(try await Self.run(store, Fixtures.workout, .workoutDuration(.equal, 1799.9999996)).get() == 1)
        for seconds in [Double.nan, .infinity, -.infinity] {
            #expect(Self.refused(await Self.run(store, Fixtures.workout, .workoutDuration(.greaterThan, seconds)), naming: "predicate.workout.duration.seconds"))
        }
    }

    @Test("A sample spanning the store's whole range of dates is found by every window it overlaps")
    func widestSample() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // The widest span int64 microseconds hold: its length overflows an int64.
        var wide = Fixtures.quantity(5, start: 0)
        wide.startDate = Date(timeIntervalSince1970: -9.2e12)
        wide.endDate = Date(timeIntervalSince1970: 9.2e12)
        _ = try await store.save([wide], source: Fixtures.app)
        for start in [Fixtures.base, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 9e12)] {
            #expect(try await store.count(Fixtures.steps, .date(start: start, end: start.addingTimeInterval(60))) == 1, "\(start.timeIntervalSince1970)")
        }
    }

    @Test("Date windows far past the store's range are answered as open bounds; non-finite dates are refused naming the bound")
    func extremeDates() async throws {
        let temporary = try await TemporaryStore.make()
        try await Self.populate(temporary.store)
        let store = temporary.store
        let far = Date(timeIntervalSince1970: 1e300)
        let past = Date(timeIntervalSince1970: -1e300)
        for options in [DatePredicateOptions(), .strictStartDate, .strictEndDate, [.strictStartDate, .strictEndDate]] {
            #expect(try await Self.run(store, Fixtures.steps, .date(start: past, end: far, options: options)).get() == 1, "\(options)")
            #expect(try await Self.run(store, Fixtures.steps, .date(start: far, end: nil, options: options)).get() == 0)
            #expect(try await Self.run(store, Fixtures.steps, .date(start: nil, end: past, options: options)).get() == 0)
            #expect(try await Self.run(store, Fixtures.steps, .date(start: .distantPast, end: .distantFuture, options: options)).get() == 1)
            for bad in [Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity)] {
                #expect(Self.refused(await Self.run(store, Fixtures.steps, .date(start: bad, end: nil, options: options)), naming: "predicate.dateWindow.start"))
                #expect(Self.refused(await Self.run(store, Fixtures.steps, .date(start: nil, end: bad, options: options)), naming: "predicate.dateWindow.end"))
            }
        }
        // Metadata dates, quantities and category values at the edges are compared, not converted.
        for value in [1e300, -1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, Double(Int64.max), Double(Int64.min)] {
            #expect(try await Self.run(store, Fixtures.steps, .metadata(key: "org.example.when", equalTo: .date(Date(timeIntervalSince1970: value)))).get() == 0)
            #expect(try await Self.run(store, Fixtures.steps, .metadata(key: "org.example.depth", .comparison(.greaterThan, .number(value)))).get() == 0)
            #expect(try await Self.run(store, Fixtures.steps, .quantity(.lessThan, Quantity(value: value, unit: .count))).get() == (value > 100 ? 1 : 0))
        }
        #expect(try await Self.run(store, Fixtures.sleep, .categoryValues([Int.min, Int.max], valueGroups: [])).get() == 0)
    }

    @Test("Metadata bytes damaged on disk (truncated, a wrong wire type, a huge length, nested garbage): queries and metadata predicates fail with a store error or skip, never trap, and the store serves on")
    func damagedStoredMetadata() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save(
            [Fixtures.quantity(1, metadata: ["note": .string("alpha"), "level": .number(1)]), Fixtures.quantity(2)],
            source: Fixtures.app)
        let damaged: [String] = [
            "X'0A'", "X'0A05'", "X'0AFFFFFFFFFFFFFFFFFF01'", "X'0F'", "X'00'",
            "X'0A0A0A08' || zeroblob(4)", "randomblob(512)", "X'0A060A046E6F746512'",
        ]
        for bytes in damaged {
            let database = try Database(path: temporary.path, create: false)
            try database.execute("UPDATE samples SET metadata = \(bytes) WHERE metadata IS NOT NULL")
            database.close()
            for predicate: SamplePredicate in [
                .metadata(key: "note", equalTo: .string("alpha")), .metadata(key: "level", .comparison(.greaterThan, .number(0))),
                .not(.metadata(key: "note", test: .exists)),
            ] {
                do { _ = try await store.all(Fixtures.steps, predicate) } catch is StoreError {} catch { Issue.record("\(bytes): \(error)") }
            }
            do { _ = try await store.all(Fixtures.steps, nil) } catch is StoreError {} catch { Issue.record("\(bytes): \(error)") }
        }
        // The store serves on: a sample without metadata is still read.
        let database = try Database(path: temporary.path, create: false)
        try database.execute("UPDATE samples SET metadata = NULL")
        database.close()
        #expect(try await store.all(Fixtures.steps, nil).count == 2)
    }
}
