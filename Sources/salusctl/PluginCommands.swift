import ArgumentParser
import Foundation
import SalusAdmin
import SwiftProtobuf

/// `salusctl plugins`: the loaded plugins with versions and paths, and the refused ones with
/// their reasons.
struct Plugins: OwnerCommand {
    static let configuration = CommandConfiguration(abstract: "List loaded and refused plugins.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    func run(admin: AdminClient) async throws {
        let response = try await admin.plugins()
        if json {
            print(try AdminJSON.text(plugins: response))
            return
        }
        print("plugin directories: \(response.directories.isEmpty ? "(none)" : response.directories.joined(separator: ", "))")
        var rows = [["ID", "VERSION", "ABI", "TYPES", "VALIDATOR", "PATH"]]
        for plugin in response.loaded {
            rows.append([
                plugin.id + (plugin.isBundled ? " (bundled)" : ""), plugin.version, "\(plugin.abiMajor).\(plugin.abiMinor)",
                "\(plugin.typeIdentifiers.count)", plugin.hasValidator ? "yes" : "no", plugin.path,
            ])
        }
        print(Table.render(rows))
        if !response.refused.isEmpty {
            print("\nrefused:")
            for plugin in response.refused {
                print("  \(plugin.path): [\(plugin.code)] \(plugin.reason)")
            }
        }
    }
}

/// The responses' proto3 JSON mapping, with raw values as numbers. As in every proto3 JSON, a
/// field at its zero value is omitted. (`salusctl types --json` prints every field instead:
/// ``TypeListingJSON``.)
let jsonOptions: JSONEncodingOptions = {
    var options = JSONEncodingOptions()
    options.alwaysPrintInt64sAsNumbers = true
    return options
}()

/// Left-aligned columns separated by two spaces.
enum Table {
    /// Columns padded to their widest cell, two spaces apart; the last column is not padded.
    /// Widths count what the terminal shows: ANSI colour sequences take no room.
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], visibleCount(cell))
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - visibleCount(cell)))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The characters of `cell` a terminal shows: without `ESC [ … m` sequences.
    static func visibleCount(_ cell: String) -> Int {
        guard cell.contains("\u{1B}") else { return cell.count }
        var count = 0
        var inEscape = false
        for character in cell {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }
}
