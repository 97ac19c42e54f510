import Foundation

/// The HealthKit reference tables in Tests/Fixtures/healthkit-reference, read as rows of
/// columns by header name. Independent of the plugins' sources on purpose.
enum ReferenceTables {
    struct Row: Sendable, CustomTestStringConvertible {
        var values: [String: String]
        subscript(_ column: String) -> String { values[column] ?? "" }
        var testDescription: String { values["identifier"] ?? values["raw_key"] ?? values["name"] ?? "\(values)" }
    }

    static func load(_ name: String) -> [Row] {
        let url = PluginFixtures.root.appendingPathComponent("Tests/Fixtures/healthkit-reference/\(name)")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Row(values: Dictionary(uniqueKeysWithValues: zip(header, $0))) }
    }

    static let types = load("types.tsv")
    static let enumerations = load("enumerations.tsv")
    static let workoutActivityTypes = load("workout-activity-types.tsv")
    static let metadataKeys = load("metadata-keys.tsv")
}

import Testing
