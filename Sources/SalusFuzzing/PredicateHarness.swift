import Foundation
import SalusModel
import SalusProto
import SalusStore
import SalusWire

/// Predicate trees: the first byte chooses the queried type among the catalog's, the rest is a
/// `salus.v1.Predicate`. It goes from the wire to the model, is compiled to SQL and runs as a
/// sample query, an anchored query and a sources query against a store holding a few samples.
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

    /// Samples for the compiled SQL to run over: a quantity and a category with metadata.
    static func samples() -> [Sample] {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let steps = Sample(
            uuid: UUID(), type: "HKQuantityTypeIdentifierStepCount", startDate: start, endDate: start.addingTimeInterval(600),
            value: .quantity(Quantity(value: 120, unit: .count)), sourceRevision: SourceRevision(appID: "org.example.fuzz", name: "Fuzz"),
            device: Device(name: "Watch", manufacturer: "Example"),
            metadata: ["HKWasUserEntered": .bool(true), "org.example.note": .string("walk")], creationDate: start)
        let sleep = Sample(
            uuid: UUID(), type: "HKCategoryTypeIdentifierSleepAnalysis", startDate: start, endDate: start.addingTimeInterval(3600),
            value: .category(1), sourceRevision: SourceRevision(appID: "org.example.fuzz", name: "Fuzz"), device: nil,
            metadata: ["HKTimeZone": .string("Europe/Paris")], creationDate: start)
        return [steps, sleep]
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let store = Self.store
        let type = types[Int(first) % types.count]
        guard let wire = try? Salus_V1_Predicate(serializedBytes: Array(bytes.dropFirst())) else { return }
        guard let predicate = try? SamplePredicate(wire: wire) else { return }
        _ = predicate.wire
        blocking {
            _ = try? await store.samples(SampleQuery(type: type, predicate: predicate, limit: 5)).collect()
            _ = try? await store.anchoredQuery([QueryDescriptor(type: type, predicate: predicate)], anchor: nil, limit: 5)
            _ = try? await store.sources(type: type, matching: predicate)
        }
    }
}
