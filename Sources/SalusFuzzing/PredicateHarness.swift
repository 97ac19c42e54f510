import Foundation
import SalusModel
import SalusProto
import SalusStore
import SalusWire

/// Predicate trees: the first byte chooses the queried type among the catalog's, the rest is a
/// `salus.v1.Predicate`. It goes from the wire to the model, is compiled to SQL and runs as a
/// sample query, an anchored query, a sources query and the statistics read against a store
/// holding a few samples (steps, heart rates, sleep, a workout with an activity and totals).
///
/// The same bytes are then read as choices (`ExtremePredicates`): a second byte picks a type
/// among a workout, quantities, a category and a prescription, the rest builds a tree whose
/// numbers and dates are edge values (±1e300, ±infinity, NaN, subnormals, the int64 edges). That
/// tree runs as built (in-process callers such as the statistics engine) and after a round trip
/// through the wire, as a client would send it.
enum PredicateHarness {
    static let store: SampleStore = blocking {
        do {
            let path = FuzzEnvironment.folder.appendingPathComponent("predicates.sqlite").path
            let store = try await SampleStore.open(
                path: path, catalog: FuzzEnvironment.catalog, configuration: .init(readerCount: 1), logger: FuzzEnvironment.logger)
            _ = try await store.save(PredicateHarness.samples(), source: SourceRevision(appID: "org.example.fuzz", name: "Fuzz", version: "1"))
            return store
        } catch {
            fatalError("cannot open the predicate harness's store: \(error)")
        }
    }

    static let types: [TypeIdentifier] = FuzzEnvironment.catalog.sortedTypes.map { TypeIdentifier(rawValue: $0.identifier) }

    /// Samples for the compiled SQL to run over: steps and a category with metadata, heart
    /// rates and energy inside a workout of two activities with saved totals.
    static func samples() -> [Sample] {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let source = SourceRevision(appID: "org.example.fuzz", name: "Fuzz")
        func quantity(_ type: TypeIdentifier, _ value: Double, _ unit: String, at offset: Double, for seconds: Double = 60) -> Sample {
            Sample(
                type: type, startDate: start.addingTimeInterval(offset), endDate: start.addingTimeInterval(offset + seconds),
                value: .quantity(Quantity(value: value, unit: try! SalusUnit(parsing: unit))), sourceRevision: source, creationDate: start)
        }
        let steps = Sample(
            uuid: UUID(), type: "HKQuantityTypeIdentifierStepCount", startDate: start, endDate: start.addingTimeInterval(600),
            value: .quantity(Quantity(value: 120, unit: .count)), sourceRevision: source,
            device: Device(name: "Watch", manufacturer: "Example"),
            metadata: ["HKWasUserEntered": .bool(true), "org.example.note": .string("walk")], creationDate: start)
        let sleep = Sample(
            uuid: UUID(), type: "HKCategoryTypeIdentifierSleepAnalysis", startDate: start, endDate: start.addingTimeInterval(3600),
            value: .category(1), sourceRevision: source, device: nil,
            metadata: ["HKTimeZone": .string("Europe/Paris")], creationDate: start)
        let kcal = try! SalusUnit(parsing: "kcal")
        let workout = Sample(
            type: "HKWorkoutTypeIdentifier", startDate: start, endDate: start.addingTimeInterval(1800),
            value: .workout(Workout(
                activityType: 82,
                activities: [
                    WorkoutActivity(activityType: 13, startDate: start, endDate: start.addingTimeInterval(900)),
                    WorkoutActivity(activityType: 37, startDate: start.addingTimeInterval(900), endDate: start.addingTimeInterval(1800)),
                ],
                statistics: ["HKQuantityTypeIdentifierActiveEnergyBurned": Quantity(value: 310, unit: kcal)])),
            sourceRevision: source, creationDate: start)
        return [
            steps, sleep, workout,
            quantity("HKQuantityTypeIdentifierHeartRate", 140, "count/min", at: 300, for: 0),
            quantity("HKQuantityTypeIdentifierHeartRate", 165, "count/min", at: 870, for: 60),
            quantity("HKQuantityTypeIdentifierActiveEnergyBurned", 150, "kcal", at: 0, for: 1800),
            quantity("HKQuantityTypeIdentifierDistanceWalkingRunning", 2.5, "km", at: 900, for: 900),
        ]
    }

    static let workout: TypeIdentifier = "HKWorkoutTypeIdentifier"
    /// The types built predicates are run against: each kind of node applies to one of them.
    static let builtTypes: [TypeIdentifier] = [
        workout, "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount",
        "HKCategoryTypeIdentifierSleepAnalysis", "HKVisionPrescriptionTypeIdentifier",
    ]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let type = types[Int(first) % types.count]
        if let wire = try? Salus_V1_Predicate(serializedBytes: Array(bytes.dropFirst())),
            let predicate = try? SamplePredicate(wire: wire)
        {
            _ = predicate.wire
            execute(predicate, on: type)
            // A mutation seldom lands on the one type byte a node applies to: run it on that type too.
            if let implied = impliedType(predicate), implied != type { execute(predicate, on: implied) }
        }
        var choices = ExtremePredicates(bytes.dropFirst())
        let builtType = choices.pick(builtTypes + [type])
        let built = choices.predicate()
        execute(built, on: builtType)
        // As a client sends it: what the wire cannot carry (NaN dates, dates past int64
        // microseconds) is refused or clamped on the way, as for any client.
        if let sent = try? SamplePredicate(wire: built.wire) {
            execute(sent, on: builtType)
        }
    }

    /// The type the first workout, quantity, category or prescription node of `predicate` applies to.
    static func impliedType(_ predicate: SamplePredicate) -> TypeIdentifier? {
        switch predicate {
        case .and(let list), .or(let list): return list.lazy.compactMap(impliedType).first
        case .not(let child): return impliedType(child)
        case .workout: return workout
        case .quantity: return "HKQuantityTypeIdentifierHeartRate"
        case .categoryValues: return "HKCategoryTypeIdentifierSleepAnalysis"
        case .prescription: return "HKVisionPrescriptionTypeIdentifier"
        case .medicationConcepts: return "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent"
        default: return nil
        }
    }

    /// Compiles and runs `predicate` in every read that takes one; errors are answers, only a
    /// crash is a failure.
    static func execute(_ predicate: SamplePredicate, on type: TypeIdentifier) {
        let store = Self.store
        blocking {
            _ = try? await store.samples(SampleQuery(type: type, predicate: predicate, limit: 5)).collect()
            _ = try? await store.anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: nil, limit: 5)
            _ = try? await store.sources(type: type, matching: predicate)
            _ = try? await store.reduceQuantities(type: type, matching: predicate, into: 0.0) { sum, row, _ in sum += row.value }
        }
    }
}
