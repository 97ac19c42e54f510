import Foundation
import Logging
import SalusSpawn
import SalusTestSupport

@testable import SalusPluginHost

/// Builds, once per test process, a directory holding the thirteen bundled plugins (symlinks to the
/// built products), the C example and the refused-plugin fixtures (compiled with `cc`).
struct PluginFixtures: Sendable {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Only the thirteen bundled plugins.
    let bundledDirectory: String
    /// The C example alone.
    let exampleDirectory: String
    /// The refused fixtures alone.
    let refusedDirectory: String

    /// The bundled library file names.
    static let bundledFiles = [
        "libSalusCore.so", "libSalusSleep.so", "libSalusReproductive.so", "libSalusMobility.so",
        "libSalusVision.so", "libSalusWheelchair.so", "libSalusVitals.so", "libSalusNutrition.so",
        "libSalusHearing.so", "libSalusSymptoms.so", "libSalusLab.so", "libSalusMindfulness.so", "libSalusClinical.so",
    ]

    static let shared: Result<PluginFixtures, FixtureError> = Result { () throws(FixtureError) in try build() }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }

    /// Where SwiftPM put the built plugin products: the directory of the test executable, or
    /// `SALUS_PLUGIN_LIBRARY_DIR`.
    static func productDirectory() throws(FixtureError) -> String {
        if let override = ProcessInfo.processInfo.environment["SALUS_PLUGIN_LIBRARY_DIR"] { return override }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(url.path)
                url = url.deletingLastPathComponent()
            }
        }
        for candidate in candidates
        where FileManager.default.fileExists(atPath: candidate + "/libSalusCore.so") {
            return candidate
        }
        throw FixtureError(description: "libSalusCore.so not found near the test executable (\(candidates)); build the plugin products first (swift build --scratch-path … --product SalusCore …) or set SALUS_PLUGIN_LIBRARY_DIR")
    }

    static func build() throws(FixtureError) -> PluginFixtures {
        let products = try productDirectory()
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("salus-plugin-tests-\(getpid())")
        let bundled = temp.appendingPathComponent("bundled").path
        let example = temp.appendingPathComponent("example").path
        let refused = temp.appendingPathComponent("refused").path
        do {
            try? FileManager.default.removeItem(at: temp)
            for directory in [bundled, example, refused] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            for file in bundledFiles {
                try FileManager.default.createSymbolicLink(atPath: bundled + "/" + file, withDestinationPath: products + "/" + file)
            }
        } catch {
            throw FixtureError(description: "preparing \(temp.path): \(error)")
        }
        try run("make", ["-s", "-C", root.appendingPathComponent("Examples/c-plugin").path, "OUT=\(example)"])

        let sources = root.appendingPathComponent("Tests/Fixtures/plugins").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
        let generated = root.appendingPathComponent("Protos/generated-c").path
        for name in names.sorted() where name.hasPrefix("refused-") && name.hasSuffix(".c") {
            let output = refused + "/" + name.dropLast(2) + ".so"
            try run("cc", [
                "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden",
                "-I", root.appendingPathComponent("Sources/CSalusPlugin/include").path, "-I", generated,
                sources + "/" + name, generated + "/salus/v1/plugin.pb-c.c", "-lprotobuf-c", "-o", output,
            ])
        }
        do {
            try FileManager.default.copyItem(
                atPath: sources + "/refused-not-a-library.so", toPath: refused + "/refused-not-a-library.so")
        } catch {
            throw FixtureError(description: "copying refused-not-a-library.so: \(error)")
        }
        return PluginFixtures(bundledDirectory: bundled, exampleDirectory: example, refusedDirectory: refused)
    }

    static func run(_ tool: String, _ arguments: [String]) throws(FixtureError) {
        let process: ChildProcess
        do {
            process = try ChildProcess(executable: "/usr/bin/env", arguments: [tool] + arguments, standardError: .pipe)
        } catch {
            throw FixtureError(description: "\(tool): \(error)")
        }
        let output = ChildProcess.readToEnd(process.outputDescriptor)
        guard process.waitUntilExit() == .exited(0) else {
            throw FixtureError(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }

    /// The fixtures, or a test failure explaining why they could not be built.
    static func get() throws -> PluginFixtures {
        try shared.get()
    }
}
