/// Why the host refused a plugin: a stable code and a sentence for people.
///
/// Every failure kind has its own code, and the message names the field, the value and what was
/// expected, so a plugin author can fix the plugin from the message alone.
public struct PluginRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of refusal, as a stable string.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code string ("missingEntrySymbol").
        public let rawValue: String

        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code string.
        public var description: String { rawValue }

        /// dlopen failed: not an ELF shared library, wrong architecture, missing dependency.
        public static let notALibrary = Code(rawValue: "notALibrary")
        /// The library does not export `salus_plugin_get_entry`.
        public static let missingEntrySymbol = Code(rawValue: "missingEntrySymbol")
        /// `salus_plugin_get_entry` returned NULL.
        public static let entryRefused = Code(rawValue: "entryRefused")
        /// The entry's ABI major differs from the host's.
        public static let abiMajorMismatch = Code(rawValue: "abiMajorMismatch")
        /// The entry's `struct_size` is smaller than ABI 1.0's entry.
        public static let structTooSmall = Code(rawValue: "structTooSmall")
        /// A required function pointer (`init`, `get_manifest`) is NULL.
        public static let missingFunction = Code(rawValue: "missingFunction")
        /// The plugin's `init` failed.
        public static let initFailed = Code(rawValue: "initFailed")
        /// `get_manifest` failed or returned no bytes.
        public static let manifestUnavailable = Code(rawValue: "manifestUnavailable")
        /// The manifest bytes are not a `salus.v1.PluginManifest`.
        public static let undecodableManifest = Code(rawValue: "undecodableManifest")
        /// A manifest field is missing or malformed.
        public static let invalidManifest = Code(rawValue: "invalidManifest")
        /// Another plugin (or an earlier entry of this one) owns the identifier, key or raw value.
        public static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")
        /// Another loaded plugin has the same plugin id.
        public static let duplicatePluginID = Code(rawValue: "duplicatePluginID")
        /// Two cases of one enumeration share a raw value.
        public static let duplicateRawValue = Code(rawValue: "duplicateRawValue")
        /// A unit string does not parse.
        public static let unparseableUnit = Code(rawValue: "unparseableUnit")
        /// A unit parses but has a dimension the type cannot use.
        public static let unitWrongDimension = Code(rawValue: "unitWrongDimension")
        /// A third-party identifier, key or plugin id is not reverse-DNS.
        public static let notReverseDNS = Code(rawValue: "notReverseDNS")
        /// A third-party plugin uses HealthKit's `HK` names, the reserved `org.salus.` namespace,
        /// or an identifier outside its own id.
        public static let reservedIdentifier = Code(rawValue: "reservedIdentifier")
    }

    /// What kind of refusal.
    public var code: Code
    /// The reason, naming the field, the value and what was expected.
    public var message: String

    /// Creates a refusal.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
