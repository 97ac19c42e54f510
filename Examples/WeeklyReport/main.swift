// WeeklyReport: an example app that keeps a server's weekly step chart up to date with SalusKit.
// An anchored query says which step samples were added or deleted since the last report; a
// statistics collection query then recomputes just the days they touch (merged daily sums, so a
// phone and a watch that counted the same walk count it once), and only the days whose totals
// changed are sent — here, printed as JSON lines.
//
//   WeeklyReport once --anchor-file FILE [--time-zone ZONE]
//   WeeklyReport follow [--anchor-file FILE] [--time-zone ZONE] [--updates N]
//
// Every subcommand takes --socket PATH (default: $SALUS_SOCKET, else the daemon's app socket).
import Foundation
import SalusKit

let usage = """
    usage: WeeklyReport once --anchor-file FILE [--time-zone ZONE]
                             print the days whose step totals changed since the anchor in FILE,
                             then save the new anchor and totals there
           WeeklyReport follow [--anchor-file FILE] [--time-zone ZONE] [--updates N]
                             the same, then live as samples are saved or deleted, until Ctrl-C
    every subcommand takes --socket PATH (default: $SALUS_SOCKET, else the default app socket)
    each changed day is one JSON line on standard output:
      {"day":"2026-11-20","sources":["org.example.phone"],"steps":5400,"week":"2026-W47"}
    """

var commandLine = CommandLine.arguments.dropFirst()
guard let command = commandLine.popFirst(), !["-h", "--help", "help"].contains(command) else {
    print(usage)
    exit(CommandLine.arguments.count > 1 ? 0 : 2)
}
do {
    let options = try Options(commandLine)
    switch command {
    case "once": try await Report.once(options)
    case "follow": try await Report.follow(options)
    default: throw ReportError("\(command): not a subcommand; expected once or follow")
    }
} catch let error as SalusError {
    FileHandle.standardError.write(Data("weeklyreport: \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("weeklyreport: \(error)\n".utf8))
    exit(1)
}
