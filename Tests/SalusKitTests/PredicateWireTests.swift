import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing
@testable import SalusKit

/// Predicates as Swift values become the `salus.v1.Predicate` tree the daemon reads.
@Suite("SamplePredicate to the wire")
struct PredicateWireTests {
    static let evening = Date(timeIntervalSince1970: 1_795_000_000)
    static let morning = Date(timeIntervalSince1970: 1_795_030_000)

    @Test("a date window carries both bounds in microseconds and the strict options")
    func dateWindow() {
        let wire = SamplePredicate.date(start: Self.evening, end: Self.morning, options: [.strictStartDate]).wire
        guard case .dateWindow(let window) = wire.node else {
            Issue.record("expected a date window, got \(String(describing: wire.node))")
            return
        }
        #expect(window.startDate == 1_795_000_000_000_000)
        #expect(window.endDate == 1_795_030_000_000_000)
        #expect(window.strictStartDate)
        #expect(!window.strictEndDate)
    }

    @Test("an open bound is absent, not zero")
    func openBound() {
        let wire = SamplePredicate.date(start: Self.evening, end: nil).wire
        #expect(wire.dateWindow.optionalStartDate != nil)
        #expect(wire.dateWindow.optionalEndDate == nil)
        #expect(!wire.dateWindow.strictStartDate && !wire.dateWindow.strictEndDate)
    }

    @Test("within(interval) is strict at both ends")
    func within() {
        let window = SamplePredicate.within(DateInterval(start: Self.evening, end: Self.morning)).wire.dateWindow
        #expect(window.strictStartDate && window.strictEndDate)
    }

    @Test("sleep analysis values become raw values; all asleep is {1, 3, 4, 5}")
    func sleepAnalysis() {
        #expect(SamplePredicate.sleepAnalysis([.asleepREM]).wire.categoryValues.values == [5])
        let asleep = SamplePredicate.sleepAnalysis(.allAsleepValues).wire.categoryValues
        #expect(asleep.values == [1, 3, 4, 5])
        #expect(asleep.valueGroups.isEmpty)
        #expect(CategoryValueSleepAnalysis.predicateForSamples(equalTo: .allAsleepValues) == .sleepAnalysis(.allAsleepValues))
        #expect(CategoryValueSleepAnalysis.allAsleepValues == [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM])
    }

    @Test("a value group is sent by name for the daemon to resolve")
    func valueGroup() {
        let wire = SamplePredicate.categoryValueGroup(CategoryValueSleepAnalysis.allAsleepValueGroup).wire.categoryValues
        #expect(wire.values.isEmpty)
        #expect(wire.valueGroups == ["allAsleep"])
        let mixed = SamplePredicate.categoryValues([2, 0], valueGroups: ["allAsleep"]).wire.categoryValues
        #expect(mixed.values == [0, 2])
        #expect(mixed.valueGroups == ["allAsleep"])
    }

    @Test("&& and || flatten; ! wraps")
    func composition() {
        let a = SamplePredicate.sources(["a"])
        let b = SamplePredicate.sources(["b"])
        let c = SamplePredicate.sources(["c"])
        #expect((a && b && c) == .and([a, b, c]))
        #expect(((a || b) || c) == .or([a, b, c]))
        #expect(!a == .not(a))
        let wire = (a && !(b || c)).wire
        #expect(wire.and.predicates.count == 2)
        #expect(wire.and.predicates[0].sources.appIds == ["a"])
        #expect(wire.and.predicates[1].not.or.predicates.map(\.sources.appIds) == [["b"], ["c"]])
    }

    @Test("sets are sent sorted, so equal predicates encode alike")
    func sortedSets() throws {
        let first = SamplePredicate.sources(["org.b", "org.a", "org.c"]).wire
        #expect(first.sources.appIds == ["org.a", "org.b", "org.c"])
        let one = UUID(uuidString: "00000000-0000-7000-8000-000000000002")!
        let two = UUID(uuidString: "00000000-0000-7000-8000-000000000001")!
        let uuids = SamplePredicate.uuids([one, two]).wire.uuids.uuids
        #expect(uuids == [WireUUID.bytes(two), WireUUID.bytes(one)])
        let bytes1: [UInt8] = try SamplePredicate.uuids([one, two]).wire.serializedBytes()
        let bytes2: [UInt8] = try SamplePredicate.uuids([two, one]).wire.serializedBytes()
        #expect(bytes1 == bytes2)
    }

    @Test("metadata tests: exists, absent, allowed values, comparison")
    func metadata() {
        let exists = SamplePredicate.metadataKeyExists(MetadataKey.timeZone).wire.metadata
        #expect(exists.key == "HKTimeZone")
        #expect(exists.test == .exists(true))
        #expect(SamplePredicate.metadata(key: "k", .absent).wire.metadata.test == .exists(false))
        let allowed = SamplePredicate.metadata(key: "k", .allowedValues([.string("x"), .number(2)])).wire.metadata
        #expect(allowed.allowedValues.values.map(\.stringValue) == ["x", ""])
        #expect(allowed.allowedValues.values[1].numberValue == 2)
        let equal = SamplePredicate.metadata(key: "HKTimeZone", equalTo: .string("Europe/Paris")).wire.metadata
        #expect(equal.comparison.operator == .equal)
        #expect(equal.comparison.value.stringValue == "Europe/Paris")
        let later = SamplePredicate.metadata(key: "d", .comparison(.greaterThan, .date(Self.evening))).wire.metadata
        #expect(later.comparison.operator == .greaterThan)
        #expect(later.comparison.value.dateValue == 1_795_000_000_000_000)
    }

    @Test("every comparison operator has its wire value")
    func operators() {
        let expected: [ComparisonOperator: Salus_V1_ComparisonOperator] = [
            .lessThan: .lessThan, .lessThanOrEqual: .lessThanOrEqual, .equal: .equal,
            .greaterThanOrEqual: .greaterThanOrEqual, .greaterThan: .greaterThan, .notEqual: .notEqual,
        ]
        for op in ComparisonOperator.allCases {
            #expect(op.wire == expected[op])
        }
    }

    @Test("quantity comparisons keep the unit as written")
    func quantity() throws {
        let wire = SamplePredicate.quantity(.greaterThanOrEqual, Quantity(value: 1, unit: .kilometer)).wire.quantity
        #expect(wire.operator == .greaterThanOrEqual)
        #expect(wire.quantity.value == 1)
        #expect(wire.quantity.unit == "km")
    }

    @Test("sources, revisions, devices and one device property")
    func sourcesAndDevices() {
        let revisions = SamplePredicate.sourceRevisions([
            SourceRevisionMatch(appID: "org.a", version: "1.0"), SourceRevisionMatch(appID: "org.b"),
        ]).wire.sourceRevisions.revisions
        #expect(revisions[0].appID == "org.a")
        #expect(revisions[0].optionalVersion == .version("1.0"))
        #expect(revisions[1].optionalVersion == nil)
        let devices = SamplePredicate.devices([Device(name: "Watch", manufacturer: "Acme")]).wire.devices.devices
        #expect(devices.count == 1)
        #expect(devices[0].name == "Watch")
        #expect(devices[0].optionalModel == nil)
        let property = SamplePredicate.deviceProperty(.manufacturer, allowedValues: ["Zeta", "Acme"]).wire.deviceProperty
        #expect(property.property == .manufacturer)
        #expect(property.allowedValues == ["Acme", "Zeta"])
        #expect(DeviceProperty.allCases.map(\.wire.rawValue) == Array(1...8))
    }

    @Test("workout predicates: activity type, duration, statistic")
    func workouts() {
        #expect(SamplePredicate.workoutActivityType(37).wire.workout.activityType == 37)
        let duration = SamplePredicate.workoutDuration(.greaterThan, 1800).wire.workout.duration
        #expect(duration.operator == .greaterThan)
        #expect(duration.seconds == 1800)
        let statistic = SamplePredicate.workoutStatistic(
            .distanceWalkingRunning, .sum, .greaterThan, Quantity(value: 5, unit: .kilometer)
        ).wire.workout.statistic
        #expect(statistic.quantityType == "HKQuantityTypeIdentifierDistanceWalkingRunning")
        #expect(statistic.statistic == .sum)
        #expect(statistic.quantity.unit == "km")
    }
}
