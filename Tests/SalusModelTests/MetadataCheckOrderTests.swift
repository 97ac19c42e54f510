import Foundation
import Testing

@testable import SalusModel

/// The sample check's metadata errors: one per key at fault, given in the keys' order whatever
/// order the dictionary holds them in, so that a refusal reads the same on every run.
@Suite("Metadata check order")
struct MetadataCheckOrderTests {
    static let keys = (0..<12).map { String(format: "org.example.key%02d", $0) }

    static let catalog = TypeCatalog(
        types: [TypeRules(identifier: "HKWorkoutTypeIdentifier", kind: .workout)],
        workoutActivityTypes: [WorkoutActivityTypeRules(name: "running", rawValue: 37)],
        metadataKeys: keys.map { key in
            MetadataKeyRules(
                key: key, valueType: .number, allowedValues: (0...2).map { TypeRules.Case(name: "value\($0)", rawValue: Int64($0)) })
        })

    @Test("every key at fault is named, in key order, each key's errors in the order the rules are checked")
    func errorsInKeyOrder() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let end = start.addingTimeInterval(600)
        // Even keys hold text (a number was declared), odd keys a number outside the allowed values.
        var metadata: [String: MetadataValue] = [:]
        for (index, key) in Self.keys.enumerated() { metadata[key] = index % 2 == 0 ? .string("text") : .number(9) }
        metadata["org.example.unknown"] = .string("kept")
        let workout = Workout(activityType: 37).withDefaultActivity(start: start, end: end)
        let sample = Sample(
            type: "HKWorkoutTypeIdentifier", startDate: start, endDate: end, value: .workout(workout),
            sourceRevision: SourceRevision(appID: "org.example.run", name: "Run"), metadata: metadata)
        let errors = Self.catalog.validationErrors(of: sample)
        #expect(errors.map(\.field) == Self.keys.map { "sample.metadata.\($0)" })
        #expect(errors.map(\.reason) == Array(repeating: ValidationError.Reason.invalidMetadataValue, count: Self.keys.count))
        #expect(errors.enumerated().allSatisfy { index, error in
            index % 2 == 0 ? error.expected == "a number value" : error.expected.hasPrefix("one of value0 0")
        })
    }
}
