import ArgumentParser
import Foundation
import SalusProto
import SalusRPC

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
    struct Show: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Show every characteristic and its value.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Print a JSON object (type identifier → {name, rawValue} or {date}; null when not set).")
        var json = false

        func run(client: RPCClient) async throws {
            let types = try await Me.characteristicTypes(client)
            let response: Salus_V1_CharacteristicsResponse = try await client.unary(
                SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest())
            Me.print(response, types: types, json: json)
        }
    }

    /// `salusctl me set NAME VALUE`.
    struct Set: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Set a characteristic.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The characteristic: identifier or short name (bloodType, dateOfBirth, ...).", valueName: "characteristic"))
        var name: String

        @Argument(help: ArgumentHelp("A case name or raw value (oNegative, 8), or a date YYYY-MM-DD for dateOfBirth.", valueName: "value"))
        var value: String

        func run(client: RPCClient) async throws {
            let types = try await Me.characteristicTypes(client)
            let type = try Me.resolve(name, types)
            var characteristic = Salus_V1_Characteristic()
            characteristic.type = type.identifier
            if type.characteristicValueType == .date {
                let parts = value.split(separator: "-").compactMap { Int32($0) }
                guard parts.count == 3, value.count == 10 else {
                    throw CommandFailure("VALUE: \"\(value)\" is not a date; expected YYYY-MM-DD, such as 1984-02-29")
                }
                characteristic.dateValue = Salus_V1_CalendarDate.with {
                    $0.year = parts[0]
                    $0.month = parts[1]
                    $0.day = parts[2]
                }
            } else if let match = type.cases.first(where: { $0.name.lowercased() == value.lowercased() }) {
                characteristic.enumValue = match.rawValue
            } else if let raw = Int64(value), type.cases.contains(where: { $0.rawValue == raw }) {
                characteristic.enumValue = raw
            } else {
                throw CommandFailure(
                    "VALUE: \"\(value)\" is not a value of \(type.identifier); expected one of "
                        + type.cases.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", "))
            }
            let response: Salus_V1_CharacteristicsResponse = try await client.unary(
                SalusMethods.Person.setCharacteristics, request: Salus_V1_SetCharacteristicsRequest.with { $0.set = [characteristic] })
            Me.print(response, types: types, json: false)
        }
    }

    /// `salusctl me clear NAME`.
    struct Clear: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Clear a characteristic (back to not set).")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The characteristic: identifier or short name.", valueName: "characteristic"))
        var name: String

        func run(client: RPCClient) async throws {
            let types = try await Me.characteristicTypes(client)
            let type = try Me.resolve(name, types)
            let response: Salus_V1_CharacteristicsResponse = try await client.unary(
                SalusMethods.Person.setCharacteristics, request: Salus_V1_SetCharacteristicsRequest.with { $0.clear = [type.identifier] })
            Me.print(response, types: types, json: false)
        }
    }

    static func characteristicTypes(_ client: RPCClient) async throws -> [Salus_V1_TypeDefinition] {
        try await client.listTypes().types.map(\.definition).filter { $0.kind == .characteristic }
    }

    /// The characteristic `name` names: identifier or short name, case-insensitive.
    static func resolve(_ name: String, _ types: [Salus_V1_TypeDefinition]) throws -> Salus_V1_TypeDefinition {
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

    static func print(_ response: Salus_V1_CharacteristicsResponse, types: [Salus_V1_TypeDefinition], json: Bool) {
        let byID = Dictionary(types.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        if json {
            var object: [String: Any] = [:]
            for item in response.characteristics {
                switch item.value {
                case .enumValue(let raw)?:
                    let name = byID[item.type]?.cases.first { $0.rawValue == raw }?.name
                    object[item.type] = ["rawValue": raw, "name": name ?? NSNull()] as [String: Any]
                case .dateValue(let date)?:
                    object[item.type] = ["date": text(date)]
                case nil:
                    object[item.type] = NSNull()
                }
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data("{}".utf8)
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        for item in response.characteristics {
            let label = byID[item.type]?.displayName ?? item.type
            let shown: String
            switch item.value {
            case .enumValue(let raw)?:
                shown = byID[item.type]?.cases.first { $0.rawValue == raw }.map { "\($0.name) (\(raw))" } ?? "\(raw)"
            case .dateValue(let date)?:
                shown = text(date)
            case nil:
                shown = "not set"
            }
            Swift.print("\(label.padding(toLength: 20, withPad: " ", startingAt: 0)) \(shown)")
        }
    }

    static func text(_ date: Salus_V1_CalendarDate) -> String {
        String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
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
    struct Days: AdminCommand {
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

        func run(client: RPCClient) async throws {
            let settings: Salus_V1_ActivitySettings = try await client.unary(
                SalusMethods.Person.getActivitySettings, request: Salus_V1_ActivitySettingsRequest())
            let zoneName = timeZone ?? settings.timeZone
            guard let zone = TimeZone(identifier: zoneName) else {
                throw CommandFailure("--time-zone: \"\(zoneName)\" is not a time zone; expected an IANA name such as Europe/Paris")
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let today = calendar.dateComponents([.year, .month, .day], from: Date())
            let last = calendar.date(from: today)!
            let first = calendar.date(byAdding: .day, value: -(days - 1), to: last)!
            let request = Salus_V1_ActivitySummaryRequest.with {
                $0.firstDay = Salus_V1_CalendarDate(first, calendar: calendar)
                $0.lastDay = Salus_V1_CalendarDate(last, calendar: calendar)
                $0.timeZone = zone.identifier
            }
            var summaries: [Salus_V1_ActivitySummary] = []
            for try await batch in try client.serverStreaming(
                SalusMethods.Person.queryActivitySummaries, request: request)
            {
                summaries += batch.summaries
            }
            if json {
                Swift.print(Summary.json(summaries))
            } else {
                Summary.table(summaries, zone: zone.identifier)
            }
        }
    }

    /// `salusctl summary goals`.
    struct Goals: AdminCommand {
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

        func run(client: RPCClient) async throws {
            var settings: Salus_V1_ActivitySettings = try await client.unary(
                SalusMethods.Person.getActivitySettings, request: Salus_V1_ActivitySettingsRequest())
            let changesGoals = move != nil || moveTime != nil || exercise != nil || stand != nil || from != nil
            if changesGoals || timeZone != nil {
                var request = Salus_V1_SetActivitySettingsRequest()
                request.timeZone = timeZone ?? ""
                if changesGoals {
                    let current = settings.goals.last ?? settings.defaultGoals
                    var goals = Salus_V1_ActivityGoals()
                    goals.activeEnergyBurned = move ?? current.activeEnergyBurned
                    goals.appleMoveTime = moveTime ?? current.appleMoveTime
                    goals.appleExerciseTime = exercise ?? current.appleExerciseTime
                    goals.appleStandHours = stand ?? current.appleStandHours
                    if let from {
                        let parts = from.split(separator: "-").compactMap { Int32($0) }
                        guard parts.count == 3, from.count == 10 else {
                            throw CommandFailure("--from: \"\(from)\" is not a day; expected YYYY-MM-DD")
                        }
                        goals.from = Salus_V1_CalendarDate.with {
                            $0.year = parts[0]
                            $0.month = parts[1]
                            $0.day = parts[2]
                        }
                    }
                    request.goals = goals
                }
                settings = try await client.unary(SalusMethods.Person.setActivitySettings, request: request)
            }
            Swift.print("time zone: \(settings.timeZone)")
            func line(_ label: String, _ goals: Salus_V1_ActivityGoals) {
                Swift.print("\(label.padding(toLength: 12, withPad: " ", startingAt: 0)) move \(number(goals.activeEnergyBurned)) kcal, "
                    + "move time \(number(goals.appleMoveTime)) min, exercise \(number(goals.appleExerciseTime)) min, "
                    + "stand \(number(goals.appleStandHours)) h")
            }
            line("default", settings.defaultGoals)
            for goals in settings.goals { line("from " + Me.text(goals.from), goals) }
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
    }

    static func table(_ summaries: [Salus_V1_ActivitySummary], zone: String) {
        Swift.print("Activity in \(zone)")
        Swift.print("day         move                    exercise       stand/roll")
        for day in summaries {
            let move = day.activityMoveMode == 2
                ? "\(number(day.appleMoveTime))/\(number(day.appleMoveTimeGoal)) min"
                : "\(number(day.activeEnergyBurned.rounded()))/\(number(day.activeEnergyBurnedGoal)) kcal"
            let exercise = "\(number(day.appleExerciseTime.rounded()))/\(number(day.appleExerciseTimeGoal)) min"
            let hours = "\(day.appleStandHours)/\(number(day.appleStandHoursGoal)) h\(day.wheelchairUse ? " roll" : "")"
            Swift.print(Me.text(day.date) + "  " + move.padding(toLength: 24, withPad: " ", startingAt: 0)
                + exercise.padding(toLength: 15, withPad: " ", startingAt: 0) + hours)
        }
    }

    static func json(_ summaries: [Salus_V1_ActivitySummary]) -> String {
        let objects: [[String: Any]] = summaries.map { day in
            [
                "date": Me.text(day.date), "timeZone": day.timeZone, "activityMoveMode": day.activityMoveMode,
                "wheelchairUse": day.wheelchairUse,
                "activeEnergyBurned": day.activeEnergyBurned, "activeEnergyBurnedGoal": day.activeEnergyBurnedGoal,
                "appleMoveTime": day.appleMoveTime, "appleMoveTimeGoal": day.appleMoveTimeGoal,
                "appleExerciseTime": day.appleExerciseTime, "appleExerciseTimeGoal": day.appleExerciseTimeGoal,
                "appleStandHours": day.appleStandHours, "appleStandHoursGoal": day.appleStandHoursGoal,
                "startDate": day.startDate, "endDate": day.endDate,
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension Salus_V1_CalendarDate {
    /// The day `date` falls on in `calendar`'s time zone.
    init(_ date: Date, calendar: Calendar) {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        self.init()
        year = Int32(parts.year!)
        month = Int32(parts.month!)
        day = Int32(parts.day!)
    }
}
