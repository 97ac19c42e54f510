import SalusKit
import SalusProto
import SalusRPC

/// Type names as the owner types them: an identifier (HKQuantityTypeIdentifierStepCount) or a
/// short name (stepCount, case-insensitive).
public enum TypeNames {
    /// The short names of an identifier: "stepCount" for HKQuantityTypeIdentifierStepCount,
    /// "workout" for HKWorkoutTypeIdentifier, "migraine.severity" and "severity" for
    /// org.example.migraine.severity (the part after the plugin's reverse-DNS prefix is not known
    /// here, so the last two components and the last).
    public static func shortNames(_ identifier: String) -> [String] {
        if identifier.hasPrefix("HK"), let range = identifier.range(of: "TypeIdentifier") {
            let after = identifier[range.upperBound...]
            let name = after.isEmpty ? String(identifier[identifier.index(identifier.startIndex, offsetBy: 2)..<range.lowerBound]) : String(after)
            return [name.prefix(1).lowercased() + name.dropFirst()]
        }
        let parts = identifier.split(separator: ".").map(String.init)
        guard parts.count > 1 else { return [] }
        return [parts.suffix(2).joined(separator: "."), parts[parts.count - 1]]
    }

    /// The identifiers `name` names among `identifiers`: itself when it is one, else those
    /// whose identifier or short name it is, case-insensitive.
    public static func matches(_ name: String, among identifiers: [String]) -> [String] {
        if identifiers.contains(name) { return [name] }
        let lowered = name.lowercased()
        return identifiers.filter { identifier in
            identifier.lowercased() == lowered || shortNames(identifier).contains { $0.lowercased() == lowered }
        }
    }

    /// The one identifier `name` names among the sample types `identifiers`. Throws
    /// ``SalusError`` (``SalusError/Code/invalidArgument``, field `TYPE`) when it names none
    /// (with up to five near identifiers) or several.
    public static func resolve(_ name: String, among identifiers: [String]) throws -> String {
        let matches = matches(name, among: identifiers)
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            throw SalusError(
                code: .invalidArgument,
                message: "TYPE: \"\(name)\" names \(matches.count) types (\(matches.joined(separator: ", "))); expected one of those identifiers",
                field: "TYPE", value: name, expected: "one of " + matches.joined(separator: ", "))
        }
        let lowered = name.lowercased()
        let near = identifiers.filter { $0.lowercased().contains(lowered) }.prefix(5)
        throw SalusError(
            code: .invalidArgument,
            message: "TYPE: no registered sample type \"\(name)\"; expected an identifier or short name such as stepCount or sleepAnalysis"
                + (near.isEmpty ? "" : " (did you mean \(near.joined(separator: ", "))?)")
                + "; salusctl types lists them",
            field: "TYPE", value: name, expected: "an identifier or short name of a registered sample type")
    }
}

/// Type names to identifiers, against the daemon's registered types (salus.v1.Admin/ListTypes).
extension AdminClient {
    /// Every registered type's identifier, characteristics included, in the daemon's order.
    public func typeIdentifiers() async throws -> [String] {
        try await call(SalusMethods.Admin.listTypes, Salus_V1_ListTypesRequest()).types.map(\.definition.identifier)
    }

    /// The full identifier of each name or short name ("stepCount"), characteristics included.
    /// A name that names no type, or several, passes through unchanged, for the daemon to
    /// refuse by name in the call it is sent with.
    public func typeIdentifiers(for names: [String]) async throws -> [String] {
        guard !names.isEmpty else { return [] }
        let identifiers = try await typeIdentifiers()
        return names.map { name in
            let matches = TypeNames.matches(name, among: identifiers)
            return matches.count == 1 ? matches[0] : name
        }
    }

    /// The identifier of the one sample type (not a characteristic) `name` names. Throws
    /// ``SalusError`` (``SalusError/Code/invalidArgument``) when it names none or several
    /// (``TypeNames/resolve(_:among:)``).
    public func sampleTypeIdentifier(for name: String) async throws -> String {
        let types = try await call(SalusMethods.Admin.listTypes, Salus_V1_ListTypesRequest()).types
        return try TypeNames.resolve(name, among: types.map(\.definition).filter { $0.kind != .characteristic }.map(\.identifier))
    }
}
