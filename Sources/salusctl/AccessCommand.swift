import ArgumentParser
import Foundation
import SalusAdmin

/// `salusctl access [APP] [--since DATE] [--json] [--retention DURATION]`: what each app did
/// with your data, from the access log.
struct Access: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "What each app did with your data: which types it read, wrote or deleted, how and when.",
        discussion: """
            Newest first, one line per app, day, type and kind of access ("org.example.fit read heart \
            rate 41 times today, last at 14:02, through a live feed"). The log holds counts and times, \
            never a value; only you can read it. --retention sets how long it is kept (30d by default; \
            an hour to ten years), purging older entries at once; --retention off (or 0) keeps \
            nothing and records nothing until a retention is set again.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: ArgumentHelp("Only this app.", valueName: "app-id")) var appID: String?
    @Option(name: .long, help: ArgumentHelp("Only accesses at or after this date (a day or ISO 8601).", valueName: "date"))
    var since: String?
    @Flag(name: .long, help: "Print the log's entries (per hour) as JSON.") var json = false
    @Option(name: .long, help: ArgumentHelp("Keep the log this long (12h, 30d), or off.", valueName: "duration"))
    var retention: String?

    func validate() throws {
        if let since { _ = try DateArgument.parse(since, flag: "--since", endOfDay: false) }
        if let retention { _ = try Self.retention(retention) }
        if let appID, appID.isEmpty {
            throw ValidationError("APP: the app id is empty; expected an app id such as org.example.sleepdiary")
        }
    }

    func run(admin: AdminClient) async throws {
        if let retention {
            let kept = try await admin.setAccessLogRetention(try Self.retention(retention))
            if kept == .zero {
                print("the access log is off: it records nothing, and what it held is gone (--retention 30d turns it on)")
                return
            }
            print("the access log keeps \(AccessLogText.duration(kept)); older entries are gone")
            if appID == nil && since == nil && !json { return }
        }
        let start = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        let log = try await admin.accessLog(appID: appID, since: start)
        if json {
            print(try AdminJSON.text(accessLog: log))
            return
        }
        let lines = AccessLogText.lines(log.entries)
        if log.retention == .zero {
            print("the access log is off: it records nothing (salusctl access --retention 30d turns it on)")
            return
        }
        if lines.isEmpty {
            let who = appID.map { "\($0) has" } ?? "no app has"
            print("\(who) read or written nothing\(since.map { " since \($0)" } ?? "") in the last \(AccessLogText.duration(log.retention)) kept")
        }
        for line in lines { print(line.text) }
        if !lines.isEmpty {
            print("(the log keeps \(AccessLogText.duration(log.retention)); salusctl access --retention changes it)")
        }
    }

    /// "12h", "30d", "2w" as a duration, "off" or "0" as zero; refused naming --retention.
    static func retention(_ text: String) throws -> Duration {
        if text == "off" || text == "0" { return .zero }
        let units: [Character: Int64] = ["h": 3_600, "d": 86_400, "w": 7 * 86_400]
        guard let unit = text.last, let scale = units[unit], let number = Int64(text.dropLast()), number > 0,
            number <= 10 * 366 * 86_400 / scale
        else {
            throw ValidationError("--retention: \(text) is not valid; expected a whole number of hours, days or weeks, such as 12h, 30d or 8w, or off")
        }
        return .seconds(number * scale)
    }
}
