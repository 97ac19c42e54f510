import Foundation
import SalusKit

/// What the report keeps between runs (the `--anchor-file`): the anchor to resume the anchored
/// query from, and the total last sent for each day, so that only changed days are sent again.
struct ReportState: Codable {
    /// Changes after this anchor are still to be reported; nil: none reported yet.
    var anchor: QueryAnchor?
    /// The steps last sent, by day ("2026-11-20").
    var totals: [String: Double] = [:]

    /// The state in `path`; empty when there is no such file yet.
    static func load(_ path: String) throws -> ReportState {
        guard FileManager.default.fileExists(atPath: path) else { return ReportState() }
        do {
            return try JSONDecoder().decode(ReportState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ReportError("--anchor-file: \(path) cannot be read (\(error)); expected a file this program wrote, or none")
        }
    }

    /// Writes the state to `path` in one step: a crash leaves the old file or the new one.
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
