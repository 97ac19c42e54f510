import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// The owner's settings files: source priorities and preferred units.
@Suite("Owner settings files")
struct OwnerSettingsTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("preferred units: saved, reopened, cleared; another dimension is refused naming unit")
    func preferredUnits() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("preferred-units.json").path
        let units = try PreferredUnitStore(path: path)
        #expect(units.unit(for: Fixture.distance) == nil)
        try units.setUnit(try SalusUnit(parsing: "km"), for: Fixture.distance, canonical: .meter)
        try units.setUnit(Fixture.kilogram, for: Fixture.bodyMass, canonical: Fixture.kilogram)
        let reopened = try PreferredUnitStore(path: path)
        #expect(reopened.unit(for: Fixture.distance)?.description == "km")
        #expect(reopened.all().count == 2)

        let error = try #require(
            throws: StoreError.self,
            performing: { try reopened.setUnit(Fixture.kilogram, for: Fixture.distance, canonical: .meter) })
        #expect(error.code == .invalidArgument && error.field == "unit" && error.message.contains("length"))
        #expect(reopened.unit(for: Fixture.distance)?.description == "km")

        try reopened.setUnit(nil, for: Fixture.distance, canonical: .meter)
        #expect(try PreferredUnitStore(path: path).unit(for: Fixture.distance) == nil)
    }

    @Test("a damaged file is refused naming the file (and the type for a unit that does not parse)")
    func damagedFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let units = folder.appendingPathComponent("preferred-units.json")
        try Data(#"{"HKQuantityTypeIdentifierDistanceWalkingRunning": "parsecs per pint"}"#.utf8).write(to: units)
        let bad = try #require(throws: StoreError.self, performing: { _ = try PreferredUnitStore(path: units.path) })
        #expect(bad.message.contains(units.path) && bad.message.contains("DistanceWalkingRunning"), "\(bad.message)")

        let priorities = folder.appendingPathComponent("source-priority.json")
        try Data("[not json".utf8).write(to: priorities)
        let broken = try #require(throws: StoreError.self, performing: { _ = try SourcePriorityStore(path: priorities.path) })
        #expect(broken.code == .database && broken.message.contains(priorities.path))
    }

    @Test("a change that cannot be written is refused and changes nothing")
    func unwritable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("missing/source-priority.json").path
        let priorities = try SourcePriorityStore(path: path)
        let error = try #require(
            throws: StoreError.self, performing: { try priorities.setPriority(["org.example.watch"], for: Fixture.steps) })
        #expect(error.code == .database && error.message.contains(path))
        #expect(priorities.priority(for: Fixture.steps) == .none)
    }
}
