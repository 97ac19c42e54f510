import Foundation
import Testing

@testable import SalusModel

/// The workout rules of docs/workouts.md: each refusal names its field and value.
@Suite("Workout rules")
struct WorkoutRuleTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// The workout type, the activity types the rules mention and the stroke-style key.
    static let catalog = TypeCatalog(
        types: [TypeRules(identifier: "HKWorkoutTypeIdentifier", kind: .workout)],
        workoutActivityTypes: [
            WorkoutActivityTypeRules(name: "cycling", rawValue: 13),
            WorkoutActivityTypeRules(name: "running", rawValue: 37),
            WorkoutActivityTypeRules(name: "swimming", rawValue: 46),
            WorkoutActivityTypeRules(name: "wheelchairWalkPace", rawValue: 70),
            WorkoutActivityTypeRules(name: "wheelchairRunPace", rawValue: 71),
            WorkoutActivityTypeRules(name: "swimBikeRun", rawValue: 82),
            WorkoutActivityTypeRules(name: "transition", rawValue: 83),
        ],
        metadataKeys: [
            MetadataKeyRules(
                key: MetadataKey.swimmingStrokeStyle, valueType: .number,
                allowedValues: (0...6).map { TypeRules.Case(name: "style\($0)", rawValue: Int64($0)) })
        ])

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// A one-hour workout sample of `workout`.
    static func sample(_ workout: Workout, duration: TimeInterval = 3600) -> Sample {
        Sample(
            type: "HKWorkoutTypeIdentifier", startDate: start, endDate: at(duration), value: .workout(workout),
            sourceRevision: SourceRevision(appID: "org.example.workouts", name: "Workouts"))
    }

    static func errors(_ workout: Workout) -> [ValidationError] {
        catalog.validationErrors(of: sample(workout))
    }

    static func activity(_ type: UInt, _ from: TimeInterval, _ to: TimeInterval?) -> WorkoutActivity {
        WorkoutActivity(activityType: type, startDate: at(from), endDate: to.map(at))
    }

    @Test("A workout with no activities gets one of its type and configuration, spanning it")
    func defaultActivity() throws {
        let configuration = WorkoutConfiguration(locationType: .outdoor)
        let bare = Workout(activityType: 37, configuration: configuration)
        let error = try #require(Self.errors(bare).first)
        #expect(error.reason == .missingValue)
        #expect(error.field == "sample.workout.activities")
        #expect(error.value == "no activities")

        let completed = bare.withDefaultActivity(start: Self.start, end: Self.at(3600))
        #expect(completed.activities.count == 1)
        #expect(completed.activities[0].activityType == 37)
        #expect(completed.activities[0].configuration == configuration)
        #expect(completed.activities[0].startDate == Self.start)
        #expect(completed.activities[0].endDate == Self.at(3600))
        #expect(Self.errors(completed).isEmpty)
        #expect(completed.withDefaultActivity(start: Self.start, end: Self.at(10)) == completed)
    }

    @Test("An activity outside the workout is refused at the date that leaves it")
    func activityInsideWorkout() throws {
        let early = Self.errors(Workout(activityType: 37, activities: [Self.activity(37, -5, 600)]))
        #expect(early.map(\.reason) == [.outsideWorkout])
        #expect(early.map(\.field) == ["sample.workout.activities[0].startDate"])
        #expect(early[0].value.hasPrefix("2023-11-14T22:13:15"))

        let late = Self.errors(Workout(activityType: 37, activities: [Self.activity(37, 0, 3601)]))
        #expect(late.map(\.field) == ["sample.workout.activities[0].endDate"])
        #expect(late[0].expected.contains("the workout's endDate"))
    }

    @Test("A saved workout's activities have ended")
    func activityEnded() {
        let errors = Self.errors(Workout(activityType: 37, activities: [Self.activity(37, 0, nil)]))
        #expect(errors.map(\.reason) == [.missingValue])
        #expect(errors.map(\.field) == ["sample.workout.activities[0].endDate"])
        #expect(errors.map(\.value) == ["nil"])
    }

    @Test("Overlapping activities are refused naming the later one")
    func overlap() {
        let errors = Self.errors(
            Workout(activityType: 37, activities: [Self.activity(37, 1000, 2000), Self.activity(37, 0, 1500)]))
        #expect(errors.map(\.reason) == [.overlappingActivities])
        #expect(errors.map(\.field) == ["sample.workout.activities[0].startDate"])
    }

    @Test("A swimBikeRun workout's activities are swimming, cycling, running or transition")
    func multisport() {
        let legs = [
            Self.activity(46, 0, 900), Self.activity(83, 900, 1000), Self.activity(13, 1000, 2400),
            Self.activity(83, 2400, 2500), Self.activity(37, 2500, 3600),
        ]
        #expect(Self.errors(Workout(activityType: 82, activities: legs)).isEmpty)

        let walking = Self.errors(Workout(activityType: 82, activities: [Self.activity(46, 0, 900), Self.activity(70, 900, 1800)]))
        #expect(walking.map(\.reason) == [.invalidValue])
        #expect(walking.map(\.field) == ["sample.workout.activities[1].activityType"])
        #expect(walking.map(\.value) == ["70"])
        #expect(walking[0].expected.contains("swimBikeRun"))
    }

    @Test("Interval workouts' activities share the workout's type; a transition only in swimBikeRun")
    func intervals() {
        let intervals = (0..<4).map { Self.activity(37, Double($0) * 600, Double($0) * 600 + 300) }
        #expect(Self.errors(Workout(activityType: 37, activities: intervals)).isEmpty)

        let mixed = Self.errors(Workout(activityType: 37, activities: [Self.activity(37, 0, 600), Self.activity(13, 600, 1200)]))
        #expect(mixed.map(\.field) == ["sample.workout.activities[1].activityType"])
        #expect(mixed.map(\.value) == ["13"])
        #expect(mixed[0].expected.hasPrefix("37, the workout's activity type"))

        let transition = Self.errors(Workout(activityType: 13, activities: [Self.activity(83, 0, 60)]))
        #expect(transition.map(\.field) == ["sample.workout.activities[0].activityType"])
    }

    @Test("Wheelchair walk and run pace are workout activity types; an unregistered one is refused")
    func wheelchair() {
        for type: UInt in [WorkoutActivityType.wheelchairWalkPace, WorkoutActivityType.wheelchairRunPace] {
            #expect(Self.errors(Workout(activityType: type, activities: [Self.activity(type, 0, 3600)])).isEmpty)
        }
        let unknown = Self.errors(Workout(activityType: 9999, activities: [Self.activity(9999, 0, 3600)]))
        #expect(unknown.map(\.field) == ["sample.workout.activityType", "sample.workout.activities[0].activityType"])
        #expect(unknown.map(\.value) == ["9999", "9999"])
    }

    @Test("Events: a known type, inside the workout, a stroke style among its values")
    func events() {
        let base = [Self.activity(46, 0, 3600)]
        let good = Workout(
            activityType: 46,
            events: [
                WorkoutEvent(.lap, startDate: Self.at(0), endDate: Self.at(40), metadata: [MetadataKey.swimmingStrokeStyle: .number(2)]),
                WorkoutEvent(.segment, startDate: Self.at(0), endDate: Self.at(80)),
                WorkoutEvent(.pauseOrResumeRequest, startDate: Self.at(100)),
            ],
            activities: base)
        #expect(Self.errors(good).isEmpty)

        let unknownType = Self.errors(Workout(activityType: 46, events: [WorkoutEvent(type: 9, startDate: Self.at(5))], activities: base))
        #expect(unknownType.map(\.field) == ["sample.workout.events[0].type"])
        #expect(unknownType.map(\.value) == ["9"])
        #expect(unknownType[0].expected.contains("8 pauseOrResumeRequest"))

        let outside = Self.errors(
            Workout(activityType: 46, events: [WorkoutEvent(.marker, startDate: Self.at(3599), endDate: Self.at(3700))], activities: base))
        #expect(outside.map(\.reason) == [.outsideWorkout])
        #expect(outside.map(\.field) == ["sample.workout.events[0].endDate"])

        let stroke = Self.errors(
            Workout(
                activityType: 46,
                events: [WorkoutEvent(.lap, startDate: Self.at(0), endDate: Self.at(40), metadata: [MetadataKey.swimmingStrokeStyle: .number(9)])],
                activities: base))
        #expect(stroke.map(\.reason) == [.invalidMetadataValue])
        #expect(stroke.map(\.field) == ["sample.workout.events[0].metadata.HKSwimmingStrokeStyle"])
    }

    @Test("A lap length is a positive length")
    func lapLength() throws {
        func errors(_ lap: Quantity) -> [ValidationError] {
            let configuration = WorkoutConfiguration(swimmingLocationType: .pool, lapLength: lap)
            return Self.errors(
                Workout(
                    activityType: 46, configuration: configuration,
                    activities: [WorkoutActivity(activityType: 46, configuration: configuration, startDate: Self.at(0), endDate: Self.at(60))]))
        }
        #expect(errors(Quantity(value: 25, unit: .meter)).isEmpty)
        #expect(errors(Quantity(value: 25, unit: try SalusUnit(parsing: "yd"))).isEmpty)
        let seconds = errors(Quantity(value: 25, unit: .second))
        #expect(seconds.map(\.reason) == [.invalidUnit, .invalidUnit])
        #expect(seconds.map(\.field) == ["sample.workout.configuration.lapLength", "sample.workout.activities[0].configuration.lapLength"])
        let zero = errors(Quantity(value: 0, unit: .meter))
        #expect(zero.first?.reason == .valueOutOfRange)
        #expect(zero.first?.value == "0 m")
    }

    @Test("Duration excludes pauses; a pause without a resume lasts to the end")
    func duration() {
        let workout = Workout(
            activityType: 37,
            events: [
                WorkoutEvent(.pause, startDate: Self.at(600)), WorkoutEvent(.resume, startDate: Self.at(900)),
                WorkoutEvent(.lap, startDate: Self.at(1000)),
                WorkoutEvent(.motionPaused, startDate: Self.at(1200)), WorkoutEvent(.motionResumed, startDate: Self.at(1260)),
                WorkoutEvent(.pause, startDate: Self.at(3000)),
            ])
        // 3600 s minus 300 s paused, 60 s motion-paused and the last 600 s.
        #expect(workout.activeDuration(from: Self.start, to: Self.at(3600)) == 2640)
        // An activity from 800 s to 1000 s begins paused (since 600 s) until 900 s.
        #expect(workout.activeDuration(from: Self.at(800), to: Self.at(1000)) == 100)
    }
}
