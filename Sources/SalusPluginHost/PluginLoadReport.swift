/// A plugin the host loaded and registered.
package struct LoadedPlugin: Hashable, Sendable {
    /// The library's path as found in the plugin directory.
    package var path: String
    /// The manifest's plugin id ("org.salus.core").
    package var id: String
    /// The manifest's name.
    package var name: String
    /// The manifest's version.
    package var version: String
    /// The ABI version the plugin was built against.
    package var abiMajor: UInt16
    /// The ABI minor version the plugin was built against.
    package var abiMinor: UInt16
    /// Whether the host recognised it as one of the plugins that ship with Salus.
    package var isBundled: Bool
    /// Whether it offers a sample validator.
    package var hasValidator: Bool
    /// The identifiers it registered (types and characteristics), sorted.
    package var typeIdentifiers: [String]
    /// How many workout activity types it registered.
    package var workoutActivityTypeCount: Int
    /// How many metadata keys it registered.
    package var metadataKeyCount: Int
}

/// A library the host refused, with the file and the exact reason.
package struct RefusedPlugin: Hashable, Sendable, CustomStringConvertible {
    /// The library's path.
    package var path: String
    /// The manifest's plugin id, when the refusal came after the manifest was decoded.
    package var id: String?
    /// Why.
    package var reason: PluginRefusal

    /// "`path`: refused (code): message".
    package var description: String { "\(path): refused (\(reason.code)): \(reason.message)" }
}

/// What loading (or checking) the plugin directories produced.
package struct PluginLoadReport: Sendable {
    /// The plugins that loaded, in load order.
    package var loaded: [LoadedPlugin]
    /// The libraries that were refused, in load order.
    package var refused: [RefusedPlugin]
    /// Directories that could not be read, with the reason.
    package var unreadableDirectories: [(path: String, reason: String)]
    /// The frozen registry of everything the loaded plugins declared.
    package var registry: TypeRegistry

    /// Whether everything found was loaded.
    package var isClean: Bool { refused.isEmpty && unreadableDirectories.isEmpty }

    /// A human-readable summary: one line per plugin, loaded or refused, then a total line.
    /// This is what `salusd --check-plugins` prints.
    package var summary: String {
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
