import Foundation
import Testing

@testable import SalusModel

/// The batch check an import uses (`TypeCatalog.prepareForSaving(_:at:allowReadOnly:rejected:)`):
/// the samples that break a rule are left out and reported, the others kept in order, prepared
/// exactly as the one-sample check prepares them.
@Suite("Batch preparation for saving")
struct BatchPreparationTests {
    static let catalog = TypeCatalog(
        types: [
            TypeRules(identifier: "HKQuantityTypeIdentifierStepCount", kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
            TypeRules(identifier: "HKWorkoutTypeIdentifier", kind: .workout),
        ],
        workoutActivityTypes: [WorkoutActivityTypeRules(name: "running", rawValue: 37)])

    @Test("faulty samples are left out and reported with their index and the one-sample check's first error; the rest kept in order, workouts prepared")
    func leavesOutFaulty() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var samples = (0..<6).map { index in
            makeStepSample(
                start: start.addingTimeInterval(Double(index) * 60),
                metadata: [MetadataKey.syncIdentifier: .string("steps-\(index)"), MetadataKey.syncVersion: .number(1)])
        }
        samples[1].metadata[MetadataKey.syncVersion] = nil  // an identifier without its version
        samples[3].value = .quantity(Quantity(value: .nan, unit: .count))
        samples[4].metadata["org.example.score"] = .number(.infinity)
        var workout = makeStepSample(start: start, duration: 3600)
        workout.type = "HKWorkoutTypeIdentifier"
        workout.value = .workout(Workout(activityType: 37))  // no activity yet: preparing adds one
        samples.append(workout)

        var rejected: [(Int, ValidationError)] = []
        let kept = Self.catalog.prepareForSaving(samples, at: "sample", allowReadOnly: true) { rejected.append(($0, $1)) }

        #expect(rejected.map(\.0) == [1, 3, 4])
        for (index, error) in rejected {
            let one = Self.catalog.prepareForSaving(samples[index], at: "sample", allowReadOnly: true)
            #expect(one.errors.first == error)
        }
        #expect(rejected.map(\.1.field) == [
            "sample.metadata.HKMetadataKeySyncVersion", "sample.quantity.value", "sample.metadata.org.example.score",
        ])
        #expect(kept.map(\.uuid) == [0, 2, 5, 6].map { samples[$0].uuid })
        // The workout prepared as alone: one activity spanning it, of its type.
        guard case .workout(let prepared) = kept.last?.value,
              case .workout(let alone) = Self.catalog.prepareForSaving(workout, at: "sample").sample.value
        else { throw CheckFailure() }
        #expect(prepared.activities.count == 1)
        #expect(prepared.activities.map { [$0.activityType, $0.startDate, $0.endDate] as [AnyHashable?] }
            == alone.activities.map { [$0.activityType, $0.startDate, $0.endDate] as [AnyHashable?] })
    }

    @Test("sync keys among many other keys are found and checked as among few")
    func syncKeysAmongMany() {
        var metadata: [String: MetadataValue] = [MetadataKey.syncIdentifier: .string("a")]
        for index in 0..<20 { metadata["org.example.key\(index)"] = .string("\(index)") }
        #expect(makeStepSample(metadata: metadata).validationErrors().map(\.reason) == [.missingSyncVersion])
        metadata[MetadataKey.syncVersion] = .string("1")
        #expect(makeStepSample(metadata: metadata).validationErrors().map(\.field) == ["sample.metadata.HKMetadataKeySyncVersion"])
        metadata[MetadataKey.syncVersion] = .number(1)
        #expect(makeStepSample(metadata: metadata).validationErrors().isEmpty)
    }

    struct CheckFailure: Error {}
}
