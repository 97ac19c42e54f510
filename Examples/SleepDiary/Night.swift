import Foundation
import SalusKit
import SalusModel

/// `night`: saves one night of sleep stages, then reads back only REM, then every asleep stage.
enum Night {
    /// One stage of the night: minutes after the evening's bedtime, and how long.
    struct Stage {
        var value: CategoryValueSleepAnalysis
        var offset: Int
        var minutes: Int
    }

    /// The night, after going to bed at 22:30: stages inside one inBed sample of 8 h 15 min.
    static let stages: [Stage] = [
        Stage(value: .inBed, offset: 0, minutes: 495),
        Stage(value: .awake, offset: 0, minutes: 15),
        Stage(value: .asleepCore, offset: 15, minutes: 45),
        Stage(value: .asleepDeep, offset: 60, minutes: 60),
        Stage(value: .asleepCore, offset: 120, minutes: 45),
        Stage(value: .asleepREM, offset: 165, minutes: 30),
        Stage(value: .awake, offset: 195, minutes: 10),
        Stage(value: .asleepCore, offset: 205, minutes: 65),
        Stage(value: .asleepDeep, offset: 270, minutes: 40),
        Stage(value: .asleepREM, offset: 310, minutes: 50),
        Stage(value: .asleepCore, offset: 360, minutes: 60),
        Stage(value: .asleepREM, offset: 420, minutes: 50),
        Stage(value: .awake, offset: 470, minutes: 25),
    ]

    static func run(_ arguments: Arguments) async throws {
        try arguments.allowOnly(["--date", "--time-zone"], command: "night")
        let zoneName = arguments["--time-zone"] ?? TimeZone.current.identifier
        guard let zone = TimeZone(identifier: zoneName) else {
            throw DiaryError("--time-zone: \"\(zoneName)\" is not a time zone; expected an IANA name such as Europe/Paris")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let evening: Date
        if let text = arguments["--date"] {
            let parser = DateFormatter()
            parser.locale = Locale(identifier: "en_US_POSIX")
            parser.timeZone = zone
            parser.dateFormat = "yyyy-MM-dd"
            guard let day = parser.date(from: text) else {
                throw DiaryError("--date: \"\(text)\" is not a day; expected the evening's date such as 2026-11-20")
            }
            evening = day
        } else {
            evening = calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: Date()))!
        }
        let bedtime = calendar.date(bySettingHour: 22, minute: 30, second: 0, of: evening)!
        let night = calendar.dateComponents(in: zone, from: bedtime)
        let nightID = String(format: "%04d-%02d-%02d", night.year!, night.month!, night.day!)

        let store = try await Diary.connect(arguments)
        defer { Task { await store.close() } }

        // Each stage carries a sync identifier, so saving the same night again keeps what is there.
        let samples = stages.enumerated().map { index, stage in
            Sample.sleepAnalysis(
                stage.value,
                start: bedtime.addingTimeInterval(Double(stage.offset) * 60),
                end: bedtime.addingTimeInterval(Double(stage.offset + stage.minutes) * 60),
                metadata: [
                    MetadataKey.timeZone: .string(zone.identifier),
                    MetadataKey.syncIdentifier: .string("sleepdiary-\(nightID)-\(index)"),
                    MetadataKey.syncVersion: .number(1),
                ]
            )
        }
        let results = try await store.save(samples)
        let saved = results.filter { $0.outcome == .saved }.count
        say("night of \(nightID) (\(zone.identifier)): saved \(saved), kept \(results.count - saved) existing of \(results.count) samples")

        let window = SamplePredicate.date(start: bedtime, end: bedtime.addingTimeInterval(495 * 60))
        let rem = try await SampleQueryDescriptor(
            type: Diary.sleep, predicate: window && .sleepAnalysis([.asleepREM]), sortDescriptors: [.startDate()]
        ).result(for: store)
        say("REM only:")
        for sample in rem { say("  " + Diary.line(sample)) }
        say("REM: \(rem.count) samples, \(Diary.minutes(rem)) min")

        let asleep = try await SampleQueryDescriptor(
            type: Diary.sleep, predicate: window && .sleepAnalysis(.allAsleepValues), sortDescriptors: [.startDate()]
        ).result(for: store)
        say("all asleep values:")
        for sample in asleep { say("  " + Diary.line(sample)) }
        say("asleep: \(asleep.count) samples, \(Diary.minutes(asleep)) min")
    }
}
