import Dispatch
import Foundation
import Logging
import SalusModel
import SalusPluginHost

/// Runs `body` to completion on the concurrency pool and returns its result, for the
/// synchronous fuzzer callback. Never call it from a task.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = BlockingResult<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// The result of a `blocking` call: written by its task before the semaphore is signalled, read
/// after the wait.
final class BlockingResult<T>: @unchecked Sendable {
    var value: T?
}

/// What every harness shares: a folder for this process and the bundled plugins' catalog.
enum FuzzEnvironment {
    /// A fresh folder for this process (`plugins/` holds links to the bundled plugins); removed at exit.
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-fuzz-\(getpid())-\(UUID().uuidString.prefix(8))")
        let plugins = folder.appendingPathComponent("plugins", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
            for file in PluginHost.bundledPlugins.values {
                try FileManager.default.createSymbolicLink(
                    at: plugins.appendingPathComponent(file), withDestinationURL: binDirectory.appendingPathComponent(file))
            }
        } catch {
            fatalError("cannot prepare the fuzzing folder \(folder.path): \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: FuzzEnvironment.folder) }
        return folder
    }()

    /// The folder of links to the bundled plugins.
    static var pluginFolder: String { folder.appendingPathComponent("plugins").path }

    /// The folder of the built products: `$SALUS_BIN_DIR` when set, else this executable's
    /// folder (the harnesses and the test bundle are built beside the plugin libraries).
    static var binDirectory: URL {
        if let configured = ProcessInfo.processInfo.environment["SALUS_BIN_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// Warnings and worse only: a fuzzer's garbage must not flood the console.
    static var logger: Logger {
        var logger = Logger(label: "salus-fuzz")
        logger.logLevel = .critical
        return logger
    }

    /// The bundled plugins' catalog; stops the process when a plugin does not load, since
    /// every harness that maps types needs them.
    static let catalog: TypeCatalog = {
        let report = PluginHost.load(directories: [pluginFolder], logger: logger)
        guard report.refused.isEmpty, report.loaded.count == PluginHost.bundledPlugins.count else {
            let refused = report.refused.map { "\($0.path): \($0.reason.message)" }.joined(separator: "; ")
            fatalError(
                "the bundled plugins did not all load from \(binDirectory.path) (\(report.loaded.count) of "
                    + "\(PluginHost.bundledPlugins.count)); build them beside the harness. \(refused)")
        }
        return report.registry.catalog
    }()
}
