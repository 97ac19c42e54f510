import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// Options that do not fit together or do not fit the type are refused by name.
@Suite("Option checks")
struct OptionTests {
    static func refusal(_ type: TypeIdentifier, _ options: StatisticsOptions) -> StoreError? {
        #expect(throws: StoreError.self) { try Fixture.calculator(type, options: options, []) }
    }

    @Test("cumulativeSum with a discrete option is refused, naming both")
    func mixed() {
        let error = Self.refusal(Fixture.steps, [.cumulativeSum, .discreteAverage])
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "options")
        #expect(error?.value == "cumulativeSum,discreteAverage")
        #expect(error?.expected?.contains("cannot be combined with discreteAverage") == true)
        #expect(Self.refusal(Fixture.heartRate, [.cumulativeSum, .discreteMax])?.expected?.contains("discreteMax") == true)
    }

    @Test("cumulativeSum on a discrete type is refused, naming the style")
    func sumOnDiscrete() {
        let error = Self.refusal(Fixture.heartRate, .cumulativeSum)
        #expect(error?.value == "cumulativeSum")
        #expect(error?.expected?.contains("discreteTemporallyWeighted") == true)
    }

    @Test("each discrete option on a cumulative type is refused by name")
    func discreteOnCumulative() {
        for (name, option) in [
            ("discreteAverage", StatisticsOptions.discreteAverage), ("discreteMin", .discreteMin),
            ("discreteMax", .discreteMax), ("mostRecent", .mostRecent),
        ] {
            let error = Self.refusal(Fixture.steps, option)
            #expect(error?.field == "options")
            #expect(error?.value == name)
            #expect(error?.expected?.contains("cumulative") == true)
        }
    }

    @Test("no statistic asked for (nothing, or separateBySource alone) is refused")
    func nothing() {
        #expect(Self.refusal(Fixture.steps, [])?.value == "none")
        #expect(Self.refusal(Fixture.steps, .separateBySource)?.value == "separateBySource")
    }

    @Test("valid combinations: several discrete options, duration and separateBySource with either kind")
    func valid() throws {
        _ = try Fixture.calculator(Fixture.heartRate, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource], [])
        _ = try Fixture.calculator(Fixture.steps, options: [.cumulativeSum, .duration, .separateBySource], [])
        _ = try Fixture.calculator(Fixture.steps, options: .duration, [])
    }

    @Test("options by name round-trip")
    func names() {
        for (name, option) in StatisticsOptions.named {
            #expect(StatisticsOptions(name: name) == option)
            #expect(option.description == name)
        }
        #expect(StatisticsOptions(name: "sum") == nil)
    }

    @Test("an interval count below 1 is refused naming the field")
    func intervalCount() {
        let error = #expect(throws: ValidationError.self) { try StatisticsInterval(0, .day) }
        #expect(error?.field == "interval.count")
        #expect(error?.value == "0")
    }
}
