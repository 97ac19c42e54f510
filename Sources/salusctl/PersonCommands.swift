import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusModel

/// `salusctl me`: the person's characteristics.
struct Me: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set your characteristics (date of birth, sex, blood type, skin type, wheelchair use, move mode).",
        discussion: """
            Apps may read a characteristic only with your read permission for it, and never write one.
            Examples:
              salusctl me set dateOfBirth 1984-02-29
              salusctl me set bloodType oNegative
              salusctl me set wheelchairUse yes
              salusctl me clear bloodType
            """,
        subcommands: [Show.self, Set.self, Clear.self],
        defaultSubcommand: Show.self
    )

    /// `salusctl me show`.
    struct Show: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Show every characteristic and its value.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Print a JSON object (type identifier → {name, rawValue} or {date}; null when not set).")
        var json = false

        func run(admin: AdminClient) async throws {
            let types = try await Me.characteristicTypes(admin)
            Me.print(try await admin.characteristics(), types: types, json: json)
        }
    }

    /// `salusctl me set NAME VALUE`.
    struct Set: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Set a characteristic.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The characteristic: identifier or short name (bloodType, dateOfBirth, ...).", valueName: "characteristic"))
        var name: String

        @Argument(help: ArgumentHelp("A case name or raw value (oNegative, 8), or a date YYYY-MM-DD for dateOfBirth.", valueName: "value"))
        var value: String

        func run(admin: AdminClient) async throws {
            let types = try await Me.characteristicTypes(admin)
            let type = try Me.resolve(name, types)
            let characteristic: Characteristic.Value
            if type.characteristicValue == .date {
                let parts = value.split(separator: "-").compactMap { Int($0) }
                guard parts.count == 3, value.count == 10 else {
                    throw CommandFailure("VALUE: \"\(value)\" is not a date; expected YYYY-MM-DD, such as 1984-02-29")
                }
                characteristic = .date(CalendarDate(year: parts[0], month: parts[1], day: parts[2]))
            } else if let match = type.cases.first(where: { $0.name.lowercased() == value.lowercased() }) {
                characteristic = .enumeration(match.rawValue)
            } else if let raw = Int64(value), type.cases.contains(where: { $0.rawValue == raw }) {
                characteristic = .enumeration(raw)
            } else {
                throw CommandFailure(
                    "VALUE: \"\(value)\" is not a value of \(type.identifier); expected one of "
                        + type.cases.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", "))
            }
            Me.print(try await admin.setCharacteristic(type.identifier, to: characteristic), types: types, json: false)
        }
    }

    /// `salusctl me clear NAME`.
    struct Clear: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Clear a characteristic (back to not set).")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The characteristic: identifier or short name.", valueName: "characteristic"))
        var name: String

        func run(admin: AdminClient) async throws {
            let types = try await Me.characteristicTypes(admin)
            let type = try Me.resolve(name, types)
            Me.print(try await admin.clearCharacteristic(type.identifier), types: types, json: false)
        }
    }

    static func characteristicTypes(_ admin: AdminClient) async throws -> [RegisteredType] {
        try await admin.types().types.filter { $0.kind == .characteristic }
    }

    /// The characteristic `name` names: identifier or short name, case-insensitive.
    static func resolve(_ name: String, _ types: [RegisteredType]) throws -> RegisteredType {
        let lowered = name.lowercased()
        if let match = types.first(where: {
            $0.identifier.lowercased() == lowered || Registry.shortNames($0.identifier).contains { $0.lowercased() == lowered }
        }) {
            return match
        }
        throw CommandFailure(
            "CHARACTERISTIC: no characteristic \"\(name)\"; expected one of "
                + types.flatMap { Registry.shortNames($0.identifier) }.joined(separator: ", "))
    }

    static func print(_ characteristics: [Characteristic], types: [RegisteredType], json: Bool) {
        if json {
            Swift.print(AdminJSON.text(characteristics: characteristics, types: types))
            return
        }
        let byID = Dictionary(types.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        for item in characteristics {
            let type = byID[item.type.rawValue]
            let label = type?.displayName ?? item.type.rawValue
            let shown = switch item.value {
            case .enumeration(let raw)?: type?.cases.first { $0.rawValue == raw }.map { "\($0.name) (\(raw))" } ?? "\(raw)"
            case .date(let date)?: AdminJSON.day(date)
            case nil: "not set"
            }
            Swift.print("\(label.padding(toLength: 20, withPad: " ", startingAt: 0)) \(shown)")
        }
    }
}

/// `salusctl summary`: the activity rings of the last days, and their goals.
struct Summary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show your activity summaries (move, exercise, stand) and set their goals.",
        subcommands: [Days.self, Goals.self],
        defaultSubcommand: Days.self
    )

    /// `salusctl summary [--days N]`.
    struct Days: OwnerCommand {
        static let configuration = CommandConfiguration(
            commandName: "days", abstract: "Show the activity summary of each of the last days, today included.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "How many days, ending today (1–3660).")
        var days = 7

        @Option(name: .long, help: ArgumentHelp("An IANA time zone; default: yours (salusctl summary goals --time-zone).", valueName: "zone"))
        var timeZone: String?

        @Flag(name: .long, help: "Print a JSON array instead of a table.")
        var json = false

        func validate() throws {
            guard (1...3660).contains(days) else {
                throw ValidationError("--days: \(days) is not valid; expected a whole number from 1 to 3660")
            }
        }

        func run(admin: AdminClient) async throws {
            let zoneName = if let timeZone { timeZone } else { try await admin.activitySettings().timeZone }
            guard let zone = TimeZone(identifier: zoneName) else {
                throw CommandFailure("--time-zone: \"\(zoneName)\" is not a time zone; expected an IANA name such as Europe/Paris")
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let last = calendar.startOfDay(for: Date())
            let first = calendar.date(byAdding: .day, value: -(days - 1), to: last)!
            let summaries = try await admin.activitySummaries(
                from: CalendarDate(containing: first, in: zone), to: CalendarDate(containing: last, in: zone), timeZone: zone)
            if json {
                Swift.print(AdminJSON.text(summaries: summaries))
            } else {
                Summary.table(summaries, zone: zone.identifier)
            }
        }
    }

    /// `salusctl summary goals`.
    struct Goals: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the goals, or set new ones from a day on (and the time zone days are counted in).")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "Move goal in kilocalories of active energy.")
        var move: Double?
        @Option(name: .long, help: "Move goal in minutes (move mode appleMoveTime).")
        var moveTime: Double?
        @Option(name: .long, help: "Exercise goal in minutes.")
        var exercise: Double?
        @Option(name: .long, help: "Stand (or roll) goal in hours.")
        var stand: Double?
        @Option(name: .long, help: ArgumentHelp("The first day the new goals apply to (YYYY-MM-DD); default today.", valueName: "day"))
        var from: String?
        @Option(name: .long, help: ArgumentHelp("Your IANA time zone, such as Europe/Paris.", valueName: "zone"))
        var timeZone: String?

        func run(admin: AdminClient) async throws {
            var settings = try await admin.activitySettings()
            let changesGoals = move != nil || moveTime != nil || exercise != nil || stand != nil || from != nil
            if changesGoals || timeZone != nil {
                var goals: NewActivityGoals?
                if changesGoals {
                    let current = settings.currentGoals
                    var day: CalendarDate?
                    if let from {
                        let parts = from.split(separator: "-").compactMap { Int($0) }
                        guard parts.count == 3, from.count == 10 else {
                            throw CommandFailure("--from: \"\(from)\" is not a day; expected YYYY-MM-DD")
                        }
                        day = CalendarDate(year: parts[0], month: parts[1], day: parts[2])
                    }
                    goals = NewActivityGoals(
                        from: day, activeEnergyBurned: move ?? current.activeEnergyBurned, appleMoveTime: moveTime ?? current.appleMoveTime,
                        appleExerciseTime: exercise ?? current.appleExerciseTime, appleStandHours: stand ?? current.appleStandHours)
                }
                settings = try await admin.setActivitySettings(goals: goals, timeZone: timeZone)
            }
            Swift.print("time zone: \(settings.timeZone)")
            func line(_ label: String, _ goals: ActivityGoals) {
                Swift.print("\(label.padding(toLength: 12, withPad: " ", startingAt: 0)) move \(number(goals.activeEnergyBurned)) kcal, "
                    + "move time \(number(goals.appleMoveTime)) min, exercise \(number(goals.appleExerciseTime)) min, "
                    + "stand \(number(goals.appleStandHours)) h")
            }
            line("default", settings.defaultGoals)
            for goals in settings.goals { line("from " + AdminJSON.day(goals.from), goals) }
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
    }

    static func table(_ summaries: [ActivitySummary], zone: String) {
        Swift.print("Activity in \(zone)")
        Swift.print("day         move                    exercise       stand/roll")
        for day in summaries {
            let move = day.activityMoveMode == ActivityMoveMode.appleMoveTime
                ? "\(number(day.appleMoveTime))/\(number(day.goals.appleMoveTime)) min"
                : "\(number(day.activeEnergyBurned.rounded()))/\(number(day.goals.activeEnergyBurned)) kcal"
            let exercise = "\(number(day.appleExerciseTime.rounded()))/\(number(day.goals.appleExerciseTime)) min"
            let hours = "\(day.appleStandHours)/\(number(day.goals.appleStandHours)) h\(day.wheelchairUse ? " roll" : "")"
            Swift.print(AdminJSON.day(day.date) + "  " + move.padding(toLength: 24, withPad: " ", startingAt: 0)
                + exercise.padding(toLength: 15, withPad: " ", startingAt: 0) + hours)
        }
    }
}
