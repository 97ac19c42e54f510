/// A plugin the host loaded and registered.
public struct LoadedPlugin: Hashable, Sendable {
    /// The library's path as found in the plugin directory.
    public var path: String
    /// The manifest's plugin id ("org.salus.core").
    public var id: String
    /// The manifest's name.
    public var name: String
    /// The manifest's version.
    public var version: String
    /// The ABI version the plugin was built against.
    public var abiMajor: UInt16
    /// The ABI minor version the plugin was built against.
    public var abiMinor: UInt16
    /// Whether the host recognised it as one of the plugins that ship with Salus.
    public var isBundled: Bool
    /// Whether it offers a sample validator.
    public var hasValidator: Bool
    /// The identifiers it registered (types and characteristics), sorted.
    public var typeIdentifiers: [String]
    /// How many workout activity types it registered.
    public var workoutActivityTypeCount: Int
    /// How many metadata keys it registered.
    public var metadataKeyCount: Int
}

/// A library the host refused, with the file and the exact reason.
public struct RefusedPlugin: Hashable, Sendable, CustomStringConvertible {
    /// The library's path.
    public var path: String
    /// The manifest's plugin id, when the refusal came after the manifest was decoded.
    public var id: String?
    /// Why.
    public var reason: PluginRefusal

    /// "`path`: refused (code): message".
    public var description: String { "\(path): refused (\(reason.code)): \(reason.message)" }
}

/// What loading (or checking) the plugin directories produced.
public struct PluginLoadReport: Sendable {
    /// The plugins that loaded, in load order.
    public var loaded: [LoadedPlugin]
    /// The libraries that were refused, in load order.
    public var refused: [RefusedPlugin]
    /// Directories that could not be read, with the reason.
    public var unreadableDirectories: [(path: String, reason: String)]
    /// The frozen registry of everything the loaded plugins declared.
    public var registry: TypeRegistry

    /// Whether everything found was loaded.
    public var isClean: Bool { refused.isEmpty && unreadableDirectories.isEmpty }

    /// A human-readable summary: one line per plugin, loaded or refused, then a total line.
    /// This is what `salusd --check-plugins` prints.
    public var summary: String {
        var lines: [String] = []
        for directory in unreadableDirectories {
            lines.append("unreadable directory \(directory.path): \(directory.reason)")
        }
        for plugin in loaded {
            let types = plugin.typeIdentifiers.count
            lines.append(
                "loaded  \(plugin.path): \(plugin.id) \(plugin.version) (ABI \(plugin.abiMajor).\(plugin.abiMinor)"
                    + "\(plugin.isBundled ? ", bundled" : ""))"
                    + " — \(types) type\(types == 1 ? "" : "s"), \(plugin.workoutActivityTypeCount) workout activity types,"
                    + " \(plugin.metadataKeyCount) metadata keys\(plugin.hasValidator ? ", validator" : "")")
        }
        for plugin in refused {
            lines.append("refused \(plugin.path): [\(plugin.reason.code)] \(plugin.reason.message)")
        }
        lines.append(
            "\(loaded.count) plugin\(loaded.count == 1 ? "" : "s") loaded, \(refused.count) refused,"
                + " \(registry.types.count) types registered")
        return lines.joined(separator: "\n")
    }
}
