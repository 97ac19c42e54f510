#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import SalusAdmin

/// `salusctl apps delete-data`, and what `apps show` and `apps remove --delete-data` share with
/// it: each app's own data.
extension Apps {
    struct DeleteData: OwnerCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-data",
            abstract: "Delete what an app wrote (all of it, or some types or dates).",
            discussion: """
                The samples the app saved are deleted, one transaction per type, leaving tombstones, so every \
                app's anchored feed and salus-sync see the deletions. At a terminal it asks first; --yes \
                does not ask, --dry-run only counts. --since and --until select samples by their start; \
                a command interrupted (or the machine stopped) leaves each type wholly deleted or not at \
                all, and running it again deletes the rest.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Option(name: .long, help: ArgumentHelp("Only this type (identifier or short name; repeat for several).", valueName: "type"))
        var type: [String] = []
        @Option(name: .long, help: ArgumentHelp("Only samples starting at or after this date.", valueName: "date")) var since: String?
        @Option(name: .long, help: ArgumentHelp("Only samples starting before this date (a day: before its end).", valueName: "date"))
        var until: String?
        @Flag(name: .long, help: "Count what would be deleted; delete nothing.") var dryRun = false
        @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false

        func validate() throws {
            try Apps.checkRange(since: since, until: until)
        }

        func run(admin: AdminClient) async throws {
            let selection = AppDataSelection(
                types: try await admin.typeIdentifiers(for: type),
                since: try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) },
                until: try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) })
            try await Apps.deleteData(admin, appID: appID, selection, dryRun: dryRun, yes: yes)
        }
    }

    /// Refuses a range whose end is not after its start, naming --until.
    static func checkRange(since: String?, until: String?) throws {
        let start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let end = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
        if let start, let end, start >= end {
            throw ValidationError("--until: \(until!) is not after --since \(since!); expected a later date: the range is empty")
        }
    }

    /// Counts, asks at a terminal, deletes and prints the count. Returns whether it deleted.
    @discardableResult
    static func deleteData(_ admin: AdminClient, appID: String, _ selection: AppDataSelection, dryRun: Bool, yes: Bool)
        async throws -> Bool
    {
        let planned = try await admin.deleteAppData(appID, selection, dryRun: true)
        if dryRun {
            print("would delete \(samples(planned.total)) that \(appID) wrote:")
            printTypes(planned)
            return false
        }
        if !yes && isatty(STDIN_FILENO) == 1 {
            print("delete \(samples(planned.total)) that \(appID) wrote?")
            printTypes(planned)
            print("every app's feed and salus-sync will see the deletion; this cannot be undone. [y/N] ", terminator: "")
            fflush(nil)
            guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), answer == "y" || answer == "yes" else {
                print("nothing deleted")
                return false
            }
        }
        let deleted = try await admin.deleteAppData(appID, selection)
        print("deleted \(samples(deleted.total)) that \(appID) wrote")
        printTypes(deleted)
        return true
    }

    /// "1 sample", "3 samples".
    static func samples(_ count: Int) -> String { count == 1 ? "1 sample" : "\(count) samples" }

    /// One row per type: its name, the count, the first and last day.
    static func printTypes(_ summary: AppDataSummary) {
        var rows = [["TYPE", "SAMPLES", "FIRST", "LAST"]]
        for type in summary.types {
            rows.append([type.type, "\(type.count)", day(type.first), day(type.last)])
        }
        Swift.print(Table.render(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    }

    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return DataRange.day(date, calendar)
    }

    /// What `apps show` adds: what the app wrote, per type.
    static func showData(_ admin: AdminClient, appID: String) async throws {
        let summary = try await admin.appData(appID)
        if summary.types.isEmpty {
            Swift.print("  wrote: nothing the store holds")
        } else {
            Swift.print("  wrote \(samples(summary.total)) (salusctl apps delete-data \(appID) deletes them):")
            printTypes(summary)
        }
    }
}
