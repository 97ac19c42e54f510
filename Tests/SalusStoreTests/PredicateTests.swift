import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Predicates")
struct PredicateTests {
    /// Step samples named by their value, with the spans used by the date-window cases.
    static let spans: [(name: Double, start: Double, end: Double)] = [
        (1, 50, 100),  // A: ends exactly at the window start
        (2, 200, 250),  // B: starts exactly at the window end
        (3, 100, 100),  // C: point sample at the window start
        (4, 200, 200),  // D: point sample at the window end
        (5, 150, 300),  // E: starts inside, ends after
        (6, 50, 300),  // F: spans the whole window
        (7, 50, 99),  // G: entirely before
        (8, 120, 180),  // H: entirely inside
    ]

    struct WindowCase: CustomTestStringConvertible, Sendable {
        var name: String
        var window: DateWindow
        var expected: [Double]
        var testDescription: String { name }
    }

    static let windows: [WindowCase] = [
        WindowCase(
            name: "overlap", window: DateWindow(start: Fixtures.at(100), end: Fixtures.at(200)),
            expected: [1, 3, 5, 6, 8]),
        WindowCase(
            name: "strictStartDate",
            window: DateWindow(start: Fixtures.at(100), end: Fixtures.at(200), strictStartDate: true),
            expected: [3, 5, 8]),
        WindowCase(
            name: "strictEndDate",
            window: DateWindow(start: Fixtures.at(100), end: Fixtures.at(200), strictEndDate: true),
            expected: [1, 3, 8]),
        WindowCase(
            name: "both strict",
            window: DateWindow(
                start: Fixtures.at(100), end: Fixtures.at(200), strictStartDate: true, strictEndDate: true),
            expected: [3, 8]),
        WindowCase(
            name: "open end", window: DateWindow(start: Fixtures.at(100), end: nil), expected: [1, 2, 3, 4, 5, 6, 8]),
        WindowCase(
            name: "open start", window: DateWindow(start: nil, end: Fixtures.at(200)), expected: [1, 3, 5, 6, 7, 8]),
        WindowCase(
            // HealthKit's formula (end >= ws && start < we) on a zero-length window: the samples
            // that start before the instant and reach it.
            name: "zero-length window", window: DateWindow(start: Fixtures.at(100), end: Fixtures.at(100)),
            expected: [1, 6]),
        WindowCase(
            name: "zero-length window, strict start",
            window: DateWindow(start: Fixtures.at(100), end: Fixtures.at(100), strictStartDate: true), expected: []),
        WindowCase(name: "no bounds", window: DateWindow(start: nil, end: nil), expected: [1, 2, 3, 4, 5, 6, 7, 8]),
    ]

    @Test("date windows: overlap, strict start, strict end, touching boundaries, point samples", arguments: windows)
    func dateWindow(_ testCase: WindowCase) async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save(
            Self.spans.map { Fixtures.quantity($0.name, start: $0.start, end: $0.end) }, source: Fixtures.app)
        let matched = try await store.all(Fixtures.steps, .dateWindow(testCase.window))
        #expect(Set(matched.map { $0.value.quantityValue }) == Set(testCase.expected))
    }

    @Test("sources, source revisions, devices (exact, nil-aware) and device properties")
    func sourcesAndDevices() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let watch = Device(name: "Watch", model: "W1")
        let bare = Device(name: "Watch")
        _ = try await store.save(
            [Fixtures.quantity(1, device: watch), Fixtures.quantity(2, device: bare), Fixtures.quantity(3)],
            source: Fixtures.app)
        var newer = Fixtures.app
        newer.version = "1.1"
        _ = try await store.save([Fixtures.quantity(4)], source: newer)
        _ = try await store.save([Fixtures.quantity(5, device: watch)], source: Fixtures.otherApp)

        func values(_ predicate: SamplePredicate) async throws -> Set<Double> {
            Set(try await store.all(Fixtures.steps, predicate).compactMap { $0.value.quantityValue })
        }
        #expect(try await values(.sources([Fixtures.app.appID])) == [1, 2, 3, 4])
        #expect(try await values(.sources([Fixtures.otherApp.appID, "org.example.none"])) == [5])
        #expect(try await values(.sources([])) == [])
        #expect(try await values(.sourceRevisions([SourceRevisionMatch(appID: Fixtures.app.appID, version: "1.1")])) == [4])
        #expect(try await values(.sourceRevisions([SourceRevisionMatch(appID: Fixtures.app.appID)])) == [1, 2, 3, 4])
        #expect(try await values(.devices([bare])) == [2])
        #expect(try await values(.devices([watch])) == [1, 5])
        #expect(try await values(.devices([])) == [])
        #expect(try await values(.not(.devices([watch]))) == [2, 3, 4])
        #expect(try await values(.deviceProperty(.name, allowedValues: ["Watch"])) == [1, 2, 5])
        #expect(try await values(.deviceProperty(.model, allowedValues: [])) == [2, 3, 4])
        #expect(try await values(.not(.deviceProperty(.model, allowedValues: ["W1"]))) == [2, 3, 4])
    }

    @Test("UUIDs, quantity comparisons in canonical units, and/or/not")
    func uuidsQuantitiesAndLogic() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save(
            [
                Fixtures.quantity(Fixtures.heartRate, 60, "count/min"),
                Fixtures.quantity(Fixtures.heartRate, 1.5, "count/s"),
                Fixtures.quantity(Fixtures.heartRate, 120, "count/min"),
            ], source: Fixtures.app)
        let ids = saved.results.map(\.uuid)
        func uuids(_ predicate: SamplePredicate) async throws -> Set<UUID> {
            Set(try await store.all(Fixtures.heartRate, predicate).map(\.uuid))
        }
        #expect(try await uuids(.uuids([ids[0], ids[2], UUID()])) == [ids[0], ids[2]])
        #expect(try await uuids(.uuids([])) == [])
        let ninetyPerMinute = Quantity(value: 1.5, unit: try SalusUnit(parsing: "count/s"))
        #expect(try await uuids(.quantity(.equal, ninetyPerMinute)) == [ids[1]])
        #expect(try await uuids(.quantity(.greaterThan, Quantity(value: 80, unit: try SalusUnit(parsing: "count/min")))) == [ids[1], ids[2]])
        #expect(try await uuids(.quantity(.lessThanOrEqual, ninetyPerMinute)) == [ids[0], ids[1]])
        #expect(try await uuids(.quantity(.notEqual, ninetyPerMinute)) == [ids[0], ids[2]])
        #expect(try await uuids(.and([])) == Set(ids))
        #expect(try await uuids(.or([])) == [])
        #expect(try await uuids(.not(.or([]))) == Set(ids))
        #expect(
            try await uuids(.and([.quantity(.greaterThanOrEqual, ninetyPerMinute), .not(.uuids([ids[2]]))])) == [ids[1]])
        #expect(try await uuids(.or([.uuids([ids[0]]), .quantity(.greaterThan, ninetyPerMinute)])) == [ids[0], ids[2]])
    }

    @Test("category values and value groups (all asleep)")
    func categories() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0...5).map { Fixtures.category($0, start: Double($0) * 60) }, source: Fixtures.app)
        func values(_ predicate: SamplePredicate) async throws -> [Int] {
            try await store.all(Fixtures.sleep, predicate).compactMap {
                if case .category(let raw) = $0.value { raw } else { nil }
            }
        }
        #expect(try await values(.categoryValues([5])) == [5])
        #expect(try await values(.categoryValues([], valueGroups: ["allAsleep"])) == [1, 3, 4, 5])
        #expect(try await values(.categoryValues([0], valueGroups: ["allAsleep"])) == [0, 1, 3, 4, 5])
        #expect(try await values(.not(.categoryValues([], valueGroups: ["allAsleep"]))) == [0, 2])
        #expect(try await values(.categoryValues([])) == [])
    }

    @Test("metadata: exists, equals, compares and allowed values, by value type")
    func metadata() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let samples: [Sample] = [
            Fixtures.quantity(1, metadata: ["note": .string("alpha"), "level": .number(1), "flag": .bool(true)]),
            Fixtures.quantity(2, metadata: ["note": .string("beta"), "level": .number(5), "flag": .bool(false)]),
            Fixtures.quantity(
                3,
                metadata: [
                    "when": .date(Fixtures.at(100)), "elevation": .quantity(Quantity(value: 5348, unit: .centimeter)),
                ]),
            Fixtures.quantity(
                4,
                metadata: [
                    "when": .date(Fixtures.at(200)), "elevation": .quantity(Quantity(value: 20, unit: .meter)),
                    "level": .string("5"),
                ]),
        ]
        _ = try await store.save(samples, source: Fixtures.app)
        func values(_ predicate: SamplePredicate) async throws -> Set<Double> {
            Set(try await store.all(Fixtures.steps, predicate).compactMap { $0.value.quantityValue })
        }
        #expect(try await values(.metadata(key: "note", test: .exists)) == [1, 2])
        #expect(try await values(.not(.metadata(key: "note", test: .exists))) == [3, 4])
        #expect(try await values(.metadata(key: "note", test: .comparison(.equal, .string("beta")))) == [2])
        #expect(try await values(.metadata(key: "note", test: .comparison(.notEqual, .string("beta")))) == [1])
        #expect(try await values(.metadata(key: "note", test: .comparison(.lessThan, .string("b")))) == [1])
        #expect(try await values(.metadata(key: "level", test: .comparison(.greaterThan, .number(2)))) == [2])
        #expect(try await values(.metadata(key: "level", test: .comparison(.equal, .string("5")))) == [4])
        #expect(try await values(.metadata(key: "flag", test: .comparison(.equal, .bool(true)))) == [1])
        #expect(try await values(.metadata(key: "flag", test: .comparison(.equal, .number(0)))) == [2])
        #expect(try await values(.metadata(key: "when", test: .comparison(.greaterThan, .date(Fixtures.at(150))))) == [4])
        #expect(
            try await values(.metadata(key: "elevation", test: .comparison(.equal, .quantity(Quantity(value: 53.48, unit: .meter)))))
                == [3])
        #expect(
            try await values(
                .metadata(key: "elevation", test: .comparison(.greaterThan, .quantity(Quantity(value: 1, unit: .kilometer)))))
                == [])
        #expect(
            try await values(
                .metadata(key: "elevation", test: .comparison(.lessThan, .quantity(Quantity(value: 1, unit: .kilometer)))))
                == [3, 4])
        // Another dimension never matches.
        #expect(
            try await values(.metadata(key: "elevation", test: .comparison(.lessThan, .quantity(Quantity(value: 1, unit: .second)))))
                == [])
        #expect(
            try await values(.metadata(key: "note", test: .allowedValues([.string("alpha"), .string("gamma"), .number(1)])))
                == [1])
        #expect(try await values(.metadata(key: "note", test: .allowedValues([]))) == [])
    }

    @Test("workouts: activity type, duration and statistics in canonical units")
    func workouts() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        func workout(_ activity: UInt, minutes: Double, kilometers: Double) -> Sample {
            Sample(
                type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(minutes * 60),
                value: .workout(
                    Workout(activityType: activity, statistics: [Fixtures.distance: Quantity(value: kilometers, unit: .kilometer)])),
                sourceRevision: Fixtures.app)
        }
        let saved = try await store.save(
            [workout(37, minutes: 30, kilometers: 5), workout(13, minutes: 90, kilometers: 40), workout(37, minutes: 60, kilometers: 10)],
            source: Fixtures.app)
        let ids = saved.results.map(\.uuid)
        func uuids(_ test: WorkoutTest) async throws -> Set<UUID> {
            Set(try await store.all(Fixtures.workout, .workout(test)).map(\.uuid))
        }
        #expect(try await uuids(.activityType(37)) == [ids[0], ids[2]])
        #expect(try await uuids(.duration(.greaterThanOrEqual, seconds: 3600)) == [ids[1], ids[2]])
        #expect(
            try await uuids(.statistic(quantityType: Fixtures.distance, .sum, .greaterThan, Quantity(value: 8000, unit: .meter)))
                == [ids[1], ids[2]])
        #expect(
            try await uuids(.statistic(quantityType: Fixtures.distance, .average, .greaterThan, Quantity(value: 1, unit: .meter)))
                == [])
    }

    struct InvalidCase: CustomTestStringConvertible, Sendable {
        var name: String
        var type: TypeIdentifier
        var predicate: SamplePredicate
        var field: String
        var testDescription: String { name }
    }

    static let invalid: [InvalidCase] = [
        InvalidCase(
            name: "string metadata compared with a number", type: Fixtures.sleep,
            predicate: .and([.all, .all, .metadata(key: MetadataKey.timeZone, test: .comparison(.equal, .number(1)))]),
            field: "predicate.and[2].metadata.comparison"),
        InvalidCase(
            name: "sync version compared with a string", type: Fixtures.steps,
            predicate: .or([.metadata(key: MetadataKey.syncVersion, test: .allowedValues([.number(1), .string("2")]))]),
            field: "predicate.or[0].metadata.allowedValues[1]"),
        InvalidCase(
            name: "ordering booleans", type: Fixtures.steps,
            predicate: .not(.metadata(key: "flag", test: .comparison(.lessThan, .bool(true)))),
            field: "predicate.not.metadata.comparison"),
        InvalidCase(
            name: "quantity on a category type", type: Fixtures.sleep,
            predicate: .quantity(.equal, Quantity(value: 1, unit: .count)), field: "predicate.quantity"),
        InvalidCase(
            name: "unit of the wrong dimension", type: Fixtures.steps,
            predicate: .quantity(.equal, Quantity(value: 1, unit: .meter)), field: "predicate.quantity.unit"),
        InvalidCase(
            name: "unknown value group", type: Fixtures.sleep,
            predicate: .categoryValues([], valueGroups: ["allAwake"]), field: "predicate.categoryValues.valueGroups"),
        InvalidCase(
            name: "category on a quantity type", type: Fixtures.steps, predicate: .categoryValues([1]),
            field: "predicate.categoryValues"),
        InvalidCase(
            name: "workout test on a quantity type", type: Fixtures.steps, predicate: .workout(.activityType(37)),
            field: "predicate.workout"),
        InvalidCase(
            name: "window ending before it starts", type: Fixtures.steps,
            predicate: .dateWindow(DateWindow(start: Fixtures.at(10), end: Fixtures.at(0))),
            field: "predicate.dateWindow.end"),
        InvalidCase(
            name: "too many UUIDs", type: Fixtures.steps,
            predicate: .uuids(Set((0...SamplePredicate.maximumUUIDs).map { _ in UUID() })), field: "predicate.uuids"),
    ]

    @Test("an invalid predicate names the node path", arguments: invalid)
    func invalidPredicate(_ testCase: InvalidCase) async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let error = try #require(
            #expect(throws: StoreError.self) {
                _ = try store.samples(SampleQuery(type: testCase.type, predicate: testCase.predicate))
            })
        #expect(error.code == .invalidArgument)
        #expect(error.field == testCase.field)
        let anchored = try #require(
            await #expect(throws: StoreError.self) {
                _ = try await store.anchoredQuery(
                    [QueryDescriptor(type: Fixtures.steps), QueryDescriptor(type: testCase.type, predicate: testCase.predicate)],
                    anchor: nil)
            })
        #expect(anchored.field == testCase.field.replacingOccurrences(of: "predicate", with: "descriptors[1].predicate"))
    }

    @Test("source query: apps and their devices for a type and predicate")
    func sourceQuery() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let watch = Device(name: "Watch")
        let ring = Device(name: "Ring")
        _ = try await store.save(
            [Fixtures.quantity(1, device: watch), Fixtures.quantity(2, device: ring), Fixtures.quantity(3)],
            source: Fixtures.app)
        _ = try await store.save([Fixtures.quantity(10)], source: Fixtures.otherApp)
        _ = try await store.save([Fixtures.category(1)], source: Fixtures.otherApp)
        #expect(
            try await store.sources(type: Fixtures.steps) == [
                SourceInfo(appID: Fixtures.app.appID, name: "Diary", devices: [watch, ring]),
                SourceInfo(appID: Fixtures.otherApp.appID, name: "Other", devices: []),
            ])
        #expect(
            try await store.sources(type: Fixtures.steps, matching: .quantity(.greaterThan, Quantity(value: 1.5, unit: .count)))
                == [
                    SourceInfo(appID: Fixtures.app.appID, name: "Diary", devices: [ring]),
                    SourceInfo(appID: Fixtures.otherApp.appID, name: "Other", devices: []),
                ])
        #expect(try await store.sources(type: Fixtures.sleep).map(\.appID) == [Fixtures.otherApp.appID])
        #expect(try await store.sources(type: Fixtures.heartRate).isEmpty)
    }
}

extension SampleValue {
    /// The quantity's value, for tests that name samples by value.
    var quantityValue: Double? {
        if case .quantity(let quantity) = self { quantity.value } else { nil }
    }
}
