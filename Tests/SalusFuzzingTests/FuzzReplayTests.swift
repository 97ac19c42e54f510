import Foundation
import SalusFuzzing
import SalusModel
import SalusPluginHost
import Testing

/// Every committed crash input (`Fuzz/regressions/NAME/`) and every seed (`Fuzz/corpus/NAME/`)
/// goes through its harness again, in the ordinary debug build: a crash fixed stays fixed, and
/// the seeds keep working. A harness traps on a failure, so a regression stops this process.
@Suite("Fuzzing inputs replayed")
struct FuzzReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files of `Fuzz/KIND/NAME/`, sorted; none when the folder does not exist.
    static func inputs(_ kind: String, _ harness: FuzzHarness) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(harness.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Runs the harness on its own thread: the harnesses block while they wait for the services.
    static func replay(_ harness: FuzzHarness, _ files: [URL]) async throws {
        let inputs = try files.map { try Data(contentsOf: $0) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                for input in inputs { harness.run(input) }
                done.resume()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    @Test("crash inputs found by fuzzing no longer crash", arguments: FuzzHarness.allCases)
    func regressions(harness: FuzzHarness) async throws {
        try await Self.replay(harness, Self.inputs("regressions", harness))
    }

    @Test("each harness has seeds, and they run", arguments: FuzzHarness.allCases)
    func seeds(harness: FuzzHarness) async throws {
        let seeds = Self.inputs("corpus", harness)
        #expect(!seeds.isEmpty, "Fuzz/corpus/\(harness.rawValue)/ holds no seed")
        try await Self.replay(harness, seeds)
    }

    @Test("a manifest checked after itself is refused as a duplicate plugin id")
    func manifestTwice() throws {
        let seed = try #require(Self.inputs("corpus", .manifests).first { $0.lastPathComponent == "valid" })
        let bytes = [UInt8](try Data(contentsOf: seed))
        let report = PluginHost.check(manifests: [("libA.so", bytes), ("libB.so", bytes)])
        #expect(report.loaded.map(\.path) == ["/manifests/libA.so"], "\(report.refused.map(\.reason.message))")
        #expect(report.refused.map(\.reason.code) == [.duplicatePluginID])
        #expect(report.registry.catalog.rules(for: "org.example.fuzz.pressure")?.kind == .quantity)
    }

    @Test("a unit string with parentheses nested 800 deep is refused naming the position, not a stack overflow")
    func deeplyNestedUnit() throws {
        let file = Self.fuzzFolder.appendingPathComponent("regressions/units/nested-parentheses-stack-overflow")
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(throws: UnitError.self) { try SalusUnit(parsing: text) }
        do {
            _ = try SalusUnit(parsing: text)
        } catch {
            #expect(error.code == .nestingTooDeep)
            #expect(error.position == 23)
            #expect(error.message.contains("nested at most 16 deep"))
        }
        let sixteen = String(repeating: "(", count: 16) + "kg" + String(repeating: ")", count: 16) + "/m^2"
        #expect(try SalusUnit(parsing: sixteen) == SalusUnit(parsing: "kg/m^2"))
        #expect(throws: UnitError.self) { try SalusUnit(parsing: "(" + sixteen + ")") }
    }
}
