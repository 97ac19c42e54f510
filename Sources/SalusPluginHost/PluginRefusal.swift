/// Why the host refused a plugin: a stable code and a sentence for people.
///
/// Every failure kind has its own code, and the message names the field, the value and what was
/// expected, so a plugin author can fix the plugin from the message alone.
package struct PluginRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of refusal, as a stable string.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code string ("missingEntrySymbol").
        package let rawValue: String

        /// Creates a code from its string.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The code string.
        package var description: String { rawValue }

        /// dlopen failed: not an ELF shared library, wrong architecture, missing dependency.
        package static let notALibrary = Code(rawValue: "notALibrary")
        /// The library does not export `salus_plugin_get_entry`.
        package static let missingEntrySymbol = Code(rawValue: "missingEntrySymbol")
        /// `salus_plugin_get_entry` returned NULL.
        package static let entryRefused = Code(rawValue: "entryRefused")
        /// The entry's ABI major differs from the host's.
        package static let abiMajorMismatch = Code(rawValue: "abiMajorMismatch")
        /// The entry's `struct_size` is smaller than ABI 1.0's entry.
        package static let structTooSmall = Code(rawValue: "structTooSmall")
        /// A required function pointer (`init`, `get_manifest`) is NULL.
        package static let missingFunction = Code(rawValue: "missingFunction")
        /// The plugin's `init` failed.
        package static let initFailed = Code(rawValue: "initFailed")
        /// `get_manifest` failed or returned no bytes.
        package static let manifestUnavailable = Code(rawValue: "manifestUnavailable")
        /// The manifest bytes are not a `salus.v1.PluginManifest`.
        package static let undecodableManifest = Code(rawValue: "undecodableManifest")
        /// A manifest field is missing or malformed.
        package static let invalidManifest = Code(rawValue: "invalidManifest")
        /// Another plugin (or an earlier entry of this one) owns the identifier, key or raw value.
        package static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")
        /// Another loaded plugin has the same plugin id.
        package static let duplicatePluginID = Code(rawValue: "duplicatePluginID")
        /// Two cases of one enumeration share a raw value.
        package static let duplicateRawValue = Code(rawValue: "duplicateRawValue")
        /// A unit string does not parse.
        package static let unparseableUnit = Code(rawValue: "unparseableUnit")
        /// A unit parses but has a dimension the type cannot use.
        package static let unitWrongDimension = Code(rawValue: "unitWrongDimension")
        /// A third-party identifier, key or plugin id is not reverse-DNS.
        package static let notReverseDNS = Code(rawValue: "notReverseDNS")
        /// A third-party plugin uses HealthKit's `HK` names, the reserved `org.salus.` namespace,
        /// or an identifier outside its own id.
        package static let reservedIdentifier = Code(rawValue: "reservedIdentifier")
    }

    /// What kind of refusal.
    package var code: Code
    /// The reason, naming the field, the value and what was expected.
    package var message: String

    /// Creates a refusal.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
