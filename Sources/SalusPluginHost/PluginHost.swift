import Foundation
import Logging
import SalusModel
import SalusProto
import SwiftProtobuf

/// Loads data-type plugins and builds the frozen ``TypeRegistry``.
///
/// Every file ending in `.so` in the given directories is loaded — directories in the order
/// given, files sorted by name (byte order), so the outcome is deterministic — with
/// `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)` and never closed. A library is refused, with
/// its path and a reason of its own kind (``PluginRefusal/Code``), when it is not a shared
/// library, lacks `salus_plugin_get_entry`, speaks another ABI major, has an entry smaller than
/// ABI 1.0's, fails init, or declares a manifest that does not decode or breaks a rule
/// (identifiers unique across plugins, units that parse to a dimension the aggregation style can
/// use, unique enumeration raw values, reverse-DNS names for third parties). The others load.
///
/// **Bundled plugins.** HealthKit's `HK…` identifiers and keys are reserved for the plugins that
/// ship with Salus. A plugin counts as bundled when its manifest id is in ``bundledPlugins`` *and*
/// its file has the name listed there (`org.salus.core` in `libSalusCore.so`); any other plugin
/// claiming an `org.salus.` id is refused. This guards against mistakes, not attacks: plugins are
/// trusted code running inside the daemon, so only install plugins you trust.
package enum PluginHost {
    /// The bundled plugins: manifest id → library file name.
    package static let bundledPlugins: [String: String] = [
        "org.salus.core": "libSalusCore.so",
        "org.salus.sleep": "libSalusSleep.so",
        "org.salus.reproductive": "libSalusReproductive.so",
        "org.salus.mobility": "libSalusMobility.so",
        "org.salus.vision": "libSalusVision.so",
        "org.salus.wheelchair": "libSalusWheelchair.so",
        "org.salus.vitals": "libSalusVitals.so",
        "org.salus.nutrition": "libSalusNutrition.so",
        "org.salus.hearing": "libSalusHearing.so",
        "org.salus.symptoms": "libSalusSymptoms.so",
        "org.salus.lab": "libSalusLab.so",
        "org.salus.mindfulness": "libSalusMindfulness.so",
        "org.salus.clinical": "libSalusClinical.so",
    ]

    /// The namespace reserved for bundled plugin ids.
    package static let reservedPluginIDPrefix = "org.salus."

    /// Loads every plugin in `directories`, logging each one loaded (info) and each one refused
    /// (error, with path and reason), and returns the report with the frozen registry.
    /// Plugins' own log lines go to `logger` too, tagged with the plugin's path.
    package static func load(directories: [String], logger: Logger) -> PluginLoadReport {
        LibraryLoader.logger.withLock { $0 = logger }
        let report = scan(directories: directories)
        for directory in report.unreadableDirectories {
            logger.error("plugin directory unreadable", metadata: ["directory": "\(directory.path)", "reason": "\(directory.reason)"])
        }
        for plugin in report.loaded {
            logger.debug("plugin loaded", metadata: [
                "path": "\(plugin.path)", "plugin": "\(plugin.id)", "version": "\(plugin.version)",
                "types": "\(plugin.typeIdentifiers.count)",
            ])
        }
        for plugin in report.refused {
            logger.error("plugin refused", metadata: [
                "path": "\(plugin.path)", "code": "\(plugin.reason.code)", "reason": "\(plugin.reason.message)",
            ])
        }
        return report
    }

    /// What loading `directories` would do: the same loading and checks, reported without
    /// logging. This is the plugin author's lint (`salusd --check-plugins DIR…`). Checking does
    /// load the libraries into this process (code cannot be checked without running it).
    package static func check(directories: [String]) -> PluginLoadReport {
        scan(directories: directories)
    }

    /// What loading libraries with these manifests would do, without any library: each
    /// `bytes` decoded as a `salus.v1.PluginManifest` and checked, in order, as if it came from
    /// the file `fileName`. For tests of the manifest rules and for fuzzing.
    package static func check(manifests: [(fileName: String, bytes: [UInt8])]) -> PluginLoadReport {
        var builder = RegistryBuilder()
        for (fileName, bytes) in manifests {
            builder.add(path: "/manifests/" + fileName, manifestBytes: bytes, library: nil)
        }
        return builder.finish(unreadable: [])
    }

    /// The `*.so` files of the directories: directories in the order given, names sorted.
    package static func libraryPaths(in directories: [String]) -> (paths: [String], unreadable: [(path: String, reason: String)]) {
        var paths: [String] = []
        var unreadable: [(path: String, reason: String)] = []
        for directory in directories {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory)
            } catch {
                unreadable.append((directory, "\(error.localizedDescription)"))
                continue
            }
            let base = directory.hasSuffix("/") ? directory : directory + "/"
            for name in names.filter({ $0.hasSuffix(".so") }).sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                paths.append(base + name)
            }
        }
        return (paths, unreadable)
    }

    static func scan(directories: [String]) -> PluginLoadReport {
        let (paths, unreadable) = libraryPaths(in: directories)
        var builder = RegistryBuilder()
        for path in paths {
            builder.add(path: path)
        }
        return builder.finish(unreadable: unreadable)
    }
}

/// Accepts plugins one at a time, each checked against those accepted before it.
struct RegistryBuilder {
    private var owners = ManifestChecker.Owners()
    private var loaded: [LoadedPlugin] = []
    private var refused: [RefusedPlugin] = []
    private var types: [String: TypeRules] = [:]
    private var activities: [UInt32: WorkoutActivityTypeRules] = [:]
    private var keys: [String: MetadataKeyRules] = [:]
    private var validators: [String: any SampleValidating] = [:]

    mutating func add(path: String) {
        let library: OpenedLibrary
        switch LibraryLoader.open(path: path) {
        case .failure(let reason):
            refused.append(RefusedPlugin(path: path, id: nil, reason: reason))
            return
        case .success(let opened):
            library = opened
        }
        add(path: path, manifestBytes: library.manifestBytes, library: library)
    }

    /// Decodes and checks the manifest `manifestBytes` of the library at `path` (nil `library`:
    /// the manifest alone, as `PluginHost.check(manifests:)` does).
    mutating func add(path: String, manifestBytes: [UInt8], library: OpenedLibrary?) {
        let manifest: Salus_V1_PluginManifest
        do {
            manifest = try Salus_V1_PluginManifest(serializedBytes: manifestBytes)
        } catch {
            refused.append(RefusedPlugin(path: path, id: nil, reason: PluginRefusal(
                .undecodableManifest,
                "manifest (\(manifestBytes.count) bytes) is not a protobuf-encoded salus.v1.PluginManifest: \(error)")))
            return
        }
        let fileName = (path as NSString).lastPathComponent
        let isBundled = PluginHost.bundledPlugins[manifest.id] == fileName
        if !isBundled && manifest.id.hasPrefix(PluginHost.reservedPluginIDPrefix) {
            let expected = PluginHost.bundledPlugins[manifest.id].map { "the bundled file \($0)" } ?? "an id outside \"org.salus.\""
            refused.append(RefusedPlugin(path: path, id: manifest.id, reason: PluginRefusal(
                .reservedIdentifier,
                "id: \"\(manifest.id)\" is in the namespace reserved for bundled plugins, but \(fileName) is not a bundled plugin; expected \(expected)")))
            return
        }
        let accepted: ManifestChecker.Accepted
        do {
            accepted = try ManifestChecker(manifest: manifest, isBundled: isBundled, owners: owners).check()
        } catch {
            refused.append(RefusedPlugin(path: path, id: manifest.id, reason: error))
            return
        }
        owners.pluginIDs[manifest.id] = path
        for type in accepted.types {
            owners.identifiers[type.identifier] = manifest.id
            types[type.identifier] = type
        }
        for activity in accepted.workoutActivityTypes {
            owners.workoutRawValues[activity.rawValue] = "\(activity.name) (\(manifest.id))"
            owners.workoutNames[activity.name] = manifest.id
            activities[activity.rawValue] = activity
        }
        for key in accepted.metadataKeys {
            owners.metadataKeys[key.key] = key
            keys[key.key] = key
        }
        if let library, let validator = library.validator {
            validators[manifest.id] = SampleValidator(table: validator, host: library.host, pluginID: manifest.id)
        }
        loaded.append(LoadedPlugin(
            path: path, id: manifest.id, name: manifest.name, version: manifest.version,
            abiMajor: library?.abi.major ?? LibraryLoader.hostABI.major, abiMinor: library?.abi.minor ?? LibraryLoader.hostABI.minor,
            isBundled: isBundled, hasValidator: library?.validator != nil, typeIdentifiers: accepted.types.map(\.identifier).sorted(),
            workoutActivityTypeCount: accepted.workoutActivityTypes.count, metadataKeyCount: accepted.metadataKeys.count))
    }

    func finish(unreadable: [(path: String, reason: String)]) -> PluginLoadReport {
        let catalog = TypeCatalog(
            types: types.values, workoutActivityTypes: activities.values, metadataKeys: keys.values, validators: validators)
        let registry = TypeRegistry(plugins: loaded, catalog: catalog)
        return PluginLoadReport(loaded: loaded, refused: refused, unreadableDirectories: unreadable, registry: registry)
    }
}
