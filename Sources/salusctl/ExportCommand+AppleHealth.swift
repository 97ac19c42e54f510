import Foundation
import SalusImport
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusWire
import ZIPFoundation

extension Export {
    /// `--format apple-health`: a zip in Apple's layout, `apple_health_export/export.xml`, that
    /// `salusctl import` reads back to the same samples.
    ///
    /// export.xml is written element by element to a file beside the zip while the samples are
    /// read page by page, then deflated into the zip as a stream and removed: memory does not grow
    /// with the history.
    func exportAppleHealth(
        client: RPCClient, store: HealthStore, listing: Salus_V1_ListTypesResponse, types: [Salus_V1_TypeDefinition],
        predicate: SamplePredicate?, settings: Salus_V1_ActivitySettings
    ) async throws {
        let zipURL = URL(fileURLWithPath: output!)
        let staging = zipURL.deletingLastPathComponent().appendingPathComponent(".\(zipURL.lastPathComponent).export.xml")
        defer { try? FileManager.default.removeItem(at: staging) }
        let timeZone = TimeZone(identifier: settings.timeZone) ?? .current
        let writer: AppleHealthWriter
        do {
            writer = try AppleHealthWriter(path: staging.path, names: Self.exportNames(listing), timeZone: timeZone)
        } catch {
            throw CommandFailure("--output: \(error)")
        }
        let response: Salus_V1_CharacteristicsResponse = try await client.unary(
            SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest())
        let characteristics = response.characteristics.compactMap { try? Characteristic(wire: $0, path: "characteristics") }
        try writer.begin(exportDate: Date(), locale: Locale.current.identifier, characteristics: characteristics)

        let ordered = types.compactMap { type in
            Self.modelKind(type.kind).flatMap(AppleHealthWriter.rank(of:)).map { (rank: $0, type: type) }
        }.sorted { ($0.rank, $0.type.identifier) < ($1.rank, $1.type.identifier) }
        var written = 0
        for (_, type) in ordered {
            let query = SampleQueryDescriptor(type: SampleType(type.identifier), predicate: predicate, sortDescriptors: [.startDate()])
            do {
                for try await sample in query.samples(for: store) where try writer.write(sample) {
                    written += 1
                    if written % 100_000 == 0 { FileHandle.standardError.write(Data("exported \(written) samples\n".utf8)) }
                }
            } catch let error as SalusError {
                throw CommandFailure(error.message)
            }
        }
        if self.types.isEmpty {
            try writer.activitySummaries(settings.goals.compactMap { goals in
                guard goals.hasFrom else { return nil }
                return ActivityGoals(
                    from: CalendarDate(year: Int(goals.from.year), month: Int(goals.from.month), day: Int(goals.from.day)),
                    activeEnergyBurned: goals.activeEnergyBurned, appleMoveTime: goals.appleMoveTime,
                    appleExerciseTime: goals.appleExerciseTime, appleStandHours: goals.appleStandHours)
            })
        }
        try writer.finish()

        try? FileManager.default.removeItem(at: zipURL)
        do {
            let archive = try Archive(url: zipURL, accessMode: .create)
            try archive.addEntry(with: "apple_health_export/export.xml", fileURL: staging, compressionMethod: .deflate)
            // Routes: workout-routes/route_….gpx entries go here once routes are saved with workouts.
        } catch {
            throw CommandFailure("--output: \(zipURL.path) cannot be written (\(error))")
        }
        let skipped = types.count - ordered.count
        let note = skipped > 0 ? "; \(skipped) types have no place in Apple's format and were left out" : ""
        FileHandle.standardError.write(Data("exported \(written) samples of \(ordered.count) types to \(zipURL.path)\(note)\n".utf8))
    }

    /// The kinds Apple's format can hold, as the model names them.
    static func modelKind(_ kind: Salus_V1_ObjectKind) -> ObjectKind? {
        switch kind {
        case .quantity: .quantity
        case .category: .category
        case .correlation: .correlation
        case .workout: .workout
        default: nil
        }
    }

    /// The case and workout activity names of the daemon's catalogue, for the export's value names.
    static func exportNames(_ listing: Salus_V1_ListTypesResponse) -> ExportNames {
        var cases: [String: [Int64: String]] = [:]
        var cumulative: Set<String> = []
        for info in listing.types {
            let type = info.definition
            if !type.cases.isEmpty {
                cases[type.identifier] = Dictionary(type.cases.map { ($0.rawValue, $0.name) }) { first, _ in first }
            }
            if type.aggregationStyle == .cumulative { cumulative.insert(type.identifier) }
        }
        return ExportNames(
            cases: cases, cumulative: cumulative,
            activityTypes: Dictionary(listing.workoutActivityTypes.map { ($0.definition.rawValue, $0.definition.name) }) { first, _ in first })
    }
}
