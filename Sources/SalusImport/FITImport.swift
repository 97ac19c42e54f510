import Foundation
import SalusFIT
import SalusModel

/// FIT files to workouts and samples (docs/import.md, "FIT files"): a watch's or bike
/// computer's activity, decoded by SalusFIT, with the heart rates a strap stored merged into its
/// records (`FITHeartRates`).
///
/// - Each `session` is an activity. One session is one workout; the sessions of a multisport
///   file whose sports are swimming, cycling, running and transitions are one swimBikeRun
///   workout with a leg per session, in order. Other sessions each make a workout.
/// - A file without a session (a cut-off recording) gives one workout spanning its records, of
///   its laps' sport.
/// - Laps are segment events, active pool lengths lap events with their stroke
///   (`HKSwimmingStrokeStyle`); the timer's stops and starts are pauses and resumes.
/// - Records are heart rate, cycling cadence, power, speed and distance samples, by the sport of
///   the session they fall in, and their positions the workout's route; `hrv` messages are a
///   heartbeat series.
/// - The session's totals are the workout's and the activity's statistics.
/// - `file_id` and the creator's `device_info` are the device; the source is the device too
///   (`fit.garmin-1967`).
/// - Every sample is named by the file (device, serial number, `time_created`) and its time, so
///   importing the file again, or a copy with its messages in another order, adds nothing.
package enum FITImport {
    /// The workouts and samples of the FIT file (or chain of FIT files) `bytes`.
    package static func read(_ bytes: [UInt8], catalog: TypeCatalog) throws(FileProblem) -> FileImport {
        let decoding = FITDecoder().decode(bytes)
        guard !decoding.files.isEmpty else {
            let problem = decoding.problems.first
            throw FileProblem(
                offset: problem?.offset ?? 0, field: "header", value: problem?.message ?? "no FIT header",
                expected: "a FIT file: a 12- or 14-byte header with \".FIT\"")
        }
        let messages = FITHeartRates.merged(decoding.messages)
        let fileID = messages.first { $0.globalNumber == FITProfile.Message.fileID }
        let identity = Identity(fileID: fileID, messages: messages)
        var result = FileImport(format: .fit, source: identity.source)
        for problem in decoding.problems {
            let note = FileProblem(
                offset: problem.offset, field: problem.kind.rawValue, value: problem.message,
                expected: problem.isFatal ? "a whole FIT file; what came before this byte is imported" : "a whole FIT file; the rest is imported")
            if problem.isFatal, result.stop == nil {
                result.stop = note
            } else {
                result.problems.append(note)
            }
        }
        let type = fileID?.integer(FITProfile.FileID.type)
        let sessions = messages.filter { $0.globalNumber == FITProfile.Message.session }
        let hasRecords = messages.contains { $0.globalNumber == FITProfile.Message.record && $0.timestamp != nil }
        if type == FITProfile.FileID.activityType || !sessions.isEmpty || hasRecords {
            result.workouts = Activity(messages: messages, identity: identity).workouts()
        }
        result.samples += Monitoring(messages: messages, identity: identity).samples()
        if result.workouts.isEmpty, result.samples.isEmpty, result.stop == nil {
            throw FileProblem(
                offset: fileID?.offset, field: "file_id.type", value: type.map { "\($0)" } ?? "none",
                expected: "an activity file (4) with sessions or records, or monitoring, sleep or wellness messages")
        }
        return result
    }

    /// `m/s`, made once: every record's speed is in it.
    static let metersPerSecond = SalusUnit.meter.divided(by: .second)

    /// The date of a FIT time (seconds since the FIT epoch).
    static func date(_ time: Double) -> Date {
        Date(timeIntervalSince1970: Double(FITProfile.epoch) + time)
    }

    /// The device, source and naming of one file.
    struct Identity {
        var source: SourceRevision
        var device: Device
        /// What names the file: manufacturer, product, serial number, time created.
        var key: String

        init(fileID: FITMessage?, messages: [FITMessage]) {
            let manufacturerNumber = fileID?.integer(FITProfile.FileID.manufacturer)
            let productNumber = fileID?.integer(FITProfile.FileID.product)
            let serial = fileID?.integer(FITProfile.FileID.serialNumber)
            let created = fileID?.integer(FITProfile.FileID.timeCreated) ?? messages.lazy.compactMap(\.timestamp).first.map(UInt64.init)
            let manufacturer = manufacturerNumber.map { FITImport.manufacturers[$0] ?? "manufacturer \($0)" }
            // The creator's device_info (index 0) has the software version and, sometimes, the name.
            let creator = messages.first {
                $0.globalNumber == FITProfile.Message.deviceInfo && ($0.integer(FITProfile.DeviceInfo.deviceIndex) ?? 0) == 0
            }
            let productName = fileID?.string(FITProfile.FileID.productName) ?? creator?.string(FITProfile.DeviceInfo.productName)
            let model = productName ?? productNumber.map { "product \($0)" }
            var device = Device(name: productName ?? [manufacturer, model].compactMap { $0 }.joined(separator: " "), manufacturer: manufacturer, model: model)
            if let version = creator?.value(FITProfile.DeviceInfo.softwareVersion) { device.softwareVersion = String(format: "%.2f", version) }
            if let hardware = creator?.integer(FITProfile.DeviceInfo.hardwareVersion) { device.hardwareVersion = "\(hardware)" }
            if let serial { device.localIdentifier = "\(serial)" }
            let name: String = {
                if let productName {
                    return productName.lowercased().hasPrefix((manufacturer ?? "").lowercased()) ? productName : [manufacturer, productName].compactMap { $0 }.joined(separator: " ")
                }
                return [manufacturer ?? "FIT device", productNumber.map { "\($0)" }].compactMap { $0 }.joined(separator: " ")
            }()
            self.device = device
            source = SourceRevision(appID: FITImport.appID(forSource: name), name: name, version: device.softwareVersion)
            key = "fit:\(manufacturerNumber.map { "\($0)" } ?? "")-\(productNumber.map { "\($0)" } ?? "")-\(serial.map { "\($0)" } ?? "")|\(created.map { "\($0)" } ?? "")"
        }
    }

    /// `fit.` followed by the source's name in lower case, letters and digits kept and any other
    /// run of characters one hyphen ("Garmin fenix 2" → `fit.garmin-fenix-2`).
    package static func appID(forSource name: String) -> String {
        var slug = ""
        var pendingHyphen = false
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                if pendingHyphen, !slug.isEmpty { slug += "-" }
                pendingHyphen = false
                slug.unicodeScalars.append(scalar)
            } else {
                pendingHyphen = true
            }
        }
        return "fit." + (slug.isEmpty ? "device" : slug)
    }

    /// `manufacturer` names by value (those of the devices and apps that write FIT files most).
    static let manufacturers: [UInt64: String] = [
        1: "Garmin", 15: "Dynastream", 23: "Suunto", 32: "Wahoo Fitness", 41: "Shimano", 69: "Stages Cycling", 70: "Sigma Sport",
        76: "Moxy", 95: "Stryd", 123: "Polar", 260: "Zwift", 263: "Hammerhead", 265: "Strava", 267: "Bryton", 282: "The Sufferfest",
        289: "Hammerhead", 294: "COROS", 255: "Development",
    ]
}

// MARK: Activities

extension FITImport {
    /// A sport as Salus reads it: its HealthKit activity type and the quantity types its records
    /// become.
    struct Sport {
        var activityType: UInt
        var location: WorkoutLocationType
        var swimming: WorkoutSwimmingLocationType
        var distanceType: String?
        var speedType: String?
        var powerType: String?
        var cadenceType: String?

        /// The sport of a FIT `sport` and `sub_sport`.
        init(sport: UInt64?, subSport: UInt64?) {
            let indoorSubSports: Set<UInt64> = [1, 6, 13, 14, 15, 16, 58]
            location = subSport.map { indoorSubSports.contains($0) } == true || sport == 4 ? .indoor : .unknown
            swimming = subSport == 17 ? .pool : subSport == 18 ? .openWater : .unknown
            distanceType = nil
            speedType = nil
            powerType = nil
            cadenceType = nil
            switch (sport, subSport) {
            case (1?, _), (4?, 1?):
                activityType = WorkoutActivityType.running
                distanceType = "HKQuantityTypeIdentifierDistanceWalkingRunning"
                speedType = "HKQuantityTypeIdentifierRunningSpeed"
                powerType = "HKQuantityTypeIdentifierRunningPower"
            case (2?, _), (21?, _), (4?, 6?):
                activityType = WorkoutActivityType.cycling
                distanceType = "HKQuantityTypeIdentifierDistanceCycling"
                speedType = "HKQuantityTypeIdentifierCyclingSpeed"
                powerType = "HKQuantityTypeIdentifierCyclingPower"
                cadenceType = "HKQuantityTypeIdentifierCyclingCadence"
            case (3?, _): activityType = WorkoutActivityType.transition
            case (5?, _):
                activityType = WorkoutActivityType.swimming
                distanceType = "HKQuantityTypeIdentifierDistanceSwimming"
            case (15?, _), (4?, 14?):
                activityType = 35  // rowing
                distanceType = "HKQuantityTypeIdentifierDistanceRowing"
                speedType = "HKQuantityTypeIdentifierRowingSpeed"
            case (4?, 15?): activityType = 16  // elliptical
            case (4?, 16?): activityType = 44  // stairClimbing
            case (11?, _):
                activityType = 52  // walking
                distanceType = "HKQuantityTypeIdentifierDistanceWalkingRunning"
            case (17?, _), (16?, _):
                activityType = 24  // hiking (and mountaineering)
                distanceType = "HKQuantityTypeIdentifierDistanceWalkingRunning"
            case (12?, _):
                activityType = 60  // crossCountrySkiing
                distanceType = "HKQuantityTypeIdentifierDistanceCrossCountrySkiing"
                speedType = "HKQuantityTypeIdentifierCrossCountrySkiingSpeed"
            case (13?, _): activityType = 61  // downhillSkiing
            case (14?, _): activityType = 67  // snowboarding
            case (19?, _), (41?, _), (37?, _):
                activityType = 31  // paddleSports (paddling, kayaking, stand-up paddleboarding)
                distanceType = "HKQuantityTypeIdentifierDistancePaddleSports"
                speedType = "HKQuantityTypeIdentifierPaddleSportsSpeed"
            case (10?, 20?): activityType = 50  // traditionalStrengthTraining
            case (10?, 43?): activityType = 57  // yoga
            case (10?, 44?): activityType = 66  // pilates
            case (6?, _): activityType = 6  // basketball
            case (7?, _): activityType = 41  // soccer
            case (8?, _): activityType = 48  // tennis
            case (9?, _): activityType = 1  // americanFootball
            case (25?, _): activityType = 21  // golf
            default: activityType = 3000  // other
            }
        }
    }

    /// One activity file's workouts.
    struct Activity {
        var messages: [FITMessage]
        var identity: Identity

        /// One session: its sport, interval and totals.
        struct Session {
            var message: FITMessage?
            var sport: Sport
            var start: Date
            var end: Date
            var timerTime: Double?
            var distance: Double?
            var lapLength: Double?
        }

        func sessions() -> [Session] {
            let messages = self.messages.filter { $0.globalNumber == FITProfile.Message.session }
            var sessions: [Session] = messages.compactMap { message in
                guard let startTime = message.value(FITProfile.Session.startTime) ?? message.timestamp.map(Double.init) else { return nil }
                let start = FITImport.date(startTime)
                let elapsed = message.value(FITProfile.Session.totalElapsedTime)
                    ?? message.timestamp.map { max(0, Double($0) - startTime) } ?? 0
                var sport = Sport(sport: message.integer(FITProfile.Session.sport), subSport: message.integer(FITProfile.Session.subSport))
                let poolLength = message.value(FITProfile.Session.poolLength)
                let hasLengths = self.messages.contains { $0.globalNumber == FITProfile.Message.length }
                if sport.activityType == WorkoutActivityType.swimming, sport.swimming == .unknown, poolLength != nil || hasLengths {
                    // COROS writes no lap_swimming: a pool length or lengths make it a pool swim.
                    sport.swimming = .pool
                }
                return Session(
                    message: message, sport: sport, start: start, end: start.addingTimeInterval(elapsed),
                    timerTime: message.value(FITProfile.Session.totalTimerTime), distance: message.value(FITProfile.Session.totalDistance),
                    lapLength: sport.swimming == .pool ? poolLength : nil)
            }
            sessions.sort { $0.start < $1.start }
            if sessions.isEmpty {
                // No session (a recording cut off before its summary): one spanning the records,
                // of the laps' sport.
                let times = self.messages.filter { $0.globalNumber == FITProfile.Message.record }.compactMap(\.timestamp)
                guard let first = times.min(), let last = times.max() else { return [] }
                let lap = self.messages.first { $0.globalNumber == FITProfile.Message.lap }
                let distance = self.messages.last { $0.globalNumber == FITProfile.Message.record && $0.value(FITProfile.Record.distance) != nil }?
                    .value(FITProfile.Record.distance)
                sessions = [Session(
                    message: nil, sport: Sport(sport: lap?.integer(FITProfile.Lap.sport), subSport: nil),
                    start: FITImport.date(Double(first)), end: FITImport.date(Double(last)), timerTime: nil, distance: distance, lapLength: nil)]
            }
            return sessions
        }

        func workouts() -> [FileWorkout] {
            let sessions = sessions()
            guard !sessions.isEmpty else { return [] }
            if sessions.count > 1, sessions.allSatisfy({ WorkoutActivityType.multisportLegs.contains($0.sport.activityType) }) {
                return [workout(sessions, index: 0, multisport: true)]
            }
            return sessions.enumerated().map { workout([$0.element], index: $0.offset, multisport: false) }
        }

        /// The workout of `sessions` (several: the legs of a multisport workout).
        func workout(_ sessions: [Session], index: Int, multisport: Bool) -> FileWorkout {
            let start = sessions.map(\.start).min()!
            let end = max(start, sessions.map(\.end).max()!)
            let key = identity.key + (index > 0 ? "|session \(index)" : "")
            let first = sessions[0]
            func configuration(_ session: Session) -> WorkoutConfiguration {
                WorkoutConfiguration(
                    locationType: session.sport.location, swimmingLocationType: session.sport.swimming,
                    lapLength: session.lapLength.map { Quantity(value: $0, unit: .meter) })
            }
            var workout = Workout(
                activityType: multisport ? WorkoutActivityType.swimBikeRun : first.sport.activityType,
                configuration: multisport ? WorkoutConfiguration() : configuration(first))
            var activities: [WorkoutActivity] = []
            for (index, session) in sessions.enumerated() {
                // A leg's elapsed time has its fraction while the next leg starts on a whole
                // second (1987.521 s from 07:33:01, the next from 08:06:08): it ends there.
                let next = index + 1 < sessions.count ? sessions[index + 1].start : Date.distantFuture
                var activity = WorkoutActivity(
                    uuid: FITImport.uuid("\(key)|activity \(session.start.timeIntervalSince1970)"),
                    activityType: session.sport.activityType, configuration: configuration(session), startDate: session.start,
                    endDate: max(session.start, min(session.end, next)))
                (activity.statistics, activity.allStatistics) = statistics(session)
                activities.append(activity)
            }
            workout.activities = activities
            // The workout's totals: each activity's sums added; averages weighted by time.
            var main: [TypeIdentifier: Quantity] = [:]
            var all: [TypeIdentifier: WorkoutStatistics] = [:]
            if activities.count == 1 {
                main = activities[0].statistics
                all = activities[0].allStatistics
            } else {
                var weights: [TypeIdentifier: (sum: Double, time: Double, unit: SalusUnit, maximum: Quantity?)] = [:]
                for (activity, session) in zip(activities, sessions) {
                    let time = session.end.timeIntervalSince(session.start)
                    for (type, figures) in activity.allStatistics {
                        if let sum = figures.sum {
                            let total = (all[type]?.sum?.value ?? 0) + sum.value
                            all[type, default: WorkoutStatistics()].sum = Quantity(value: total, unit: sum.unit)
                            main[type] = all[type]?.sum
                        } else if let average = figures.average {
                            var weight = weights[type] ?? (0, 0, average.unit, nil)
                            weight.sum += average.value * time
                            weight.time += time
                            if let maximum = figures.maximum, maximum.value > (weight.maximum?.value ?? -.infinity) { weight.maximum = maximum }
                            weights[type] = weight
                        }
                    }
                }
                for (type, weight) in weights where weight.time > 0 {
                    let average = Quantity(value: weight.sum / weight.time, unit: weight.unit)
                    all[type] = WorkoutStatistics(average: average, maximum: weight.maximum)
                    main[type] = average
                }
            }
            workout.statistics = main
            workout.allStatistics = all
            let timer = sessions.compactMap(\.timerTime)
            if timer.count == sessions.count {
                // Zwift's timer runs a second past its elapsed time: held to the interval's slack.
                workout.recordedDuration = min(timer.reduce(0, +), end.timeIntervalSince(start) + 1)
            }
            workout.events = events(from: start, to: end)
            var metadata: [String: MetadataValue] = [
                MetadataKey.syncIdentifier: .string(key), MetadataKey.syncVersion: .number(1),
            ]
            if !multisport, first.sport.location == .indoor { metadata[MetadataKey.indoorWorkout] = .bool(true) }
            let sample = Sample(
                uuid: FITImport.uuid(key), type: "HKWorkoutTypeIdentifier", startDate: start, endDate: end, value: .workout(workout),
                sourceRevision: identity.source, device: identity.device, metadata: metadata)
            let distances = sessions.compactMap(\.distance)
            return FileWorkout(
                workout: sample, route: route(from: start, to: end), routeSyncIdentifier: key + "|route",
                samples: heartbeats(from: start, to: end, key: key),
                moreSamples: RecordSamples(activity: self, sessions: sessions, start: start, end: end, key: key),
                distance: distances.isEmpty ? nil : distances.reduce(0, +))
        }

        /// A session's totals: distance (of its sport's type), active energy, heart rate, power
        /// and speed; zeros a device writes for "none" (Zwift's heart rate, COROS's power) left out.
        func statistics(_ session: Session) -> ([TypeIdentifier: Quantity], [TypeIdentifier: WorkoutStatistics]) {
            var all: [TypeIdentifier: WorkoutStatistics] = [:]
            guard let message = session.message else {
                if let distance = session.distance, let type = session.sport.distanceType {
                    all[TypeIdentifier(type)] = WorkoutStatistics(sum: Quantity(value: distance, unit: .meter))
                }
                return (all.compactMapValues(\.main), all)
            }
            func positive(_ field: FITProfile.Field) -> Double? { message.value(field).flatMap { $0 > 0 ? $0 : nil } }
            if let type = session.sport.distanceType, let distance = positive(FITProfile.Session.totalDistance) {
                all[TypeIdentifier(type)] = WorkoutStatistics(sum: Quantity(value: distance, unit: .meter))
            }
            if let calories = positive(FITProfile.Session.totalCalories) {
                all["HKQuantityTypeIdentifierActiveEnergyBurned"] = WorkoutStatistics(sum: Quantity(value: calories, unit: .kilocalorie))
            }
            func discrete(_ type: String?, _ average: FITProfile.Field, _ maximum: FITProfile.Field?, _ unit: SalusUnit) {
                guard let type else { return }
                let mean = positive(average).map { Quantity(value: $0, unit: unit) }
                let top = maximum.flatMap(positive).map { Quantity(value: $0, unit: unit) }
                guard mean != nil || top != nil else { return }
                all[TypeIdentifier(type)] = WorkoutStatistics(average: mean, maximum: top)
            }
            discrete("HKQuantityTypeIdentifierHeartRate", FITProfile.Session.avgHeartRate, FITProfile.Session.maxHeartRate, .countPerMinute)
            discrete(session.sport.powerType, FITProfile.Session.avgPower, FITProfile.Session.maxPower, .watt)
            discrete(session.sport.cadenceType, FITProfile.Session.avgCadence, nil, .countPerMinute)
            let speed = positive(FITProfile.Session.enhancedAvgSpeed) != nil ? FITProfile.Session.enhancedAvgSpeed : FITProfile.Session.avgSpeed
            discrete(session.sport.speedType, speed, FITProfile.Session.maxSpeed, FITImport.metersPerSecond)
            // A statistic with only a maximum has no main figure; HealthKit's average is the one kept.
            return (all.compactMapValues(\.main), all)
        }

        /// Laps (segments), active pool lengths (laps with their stroke) and the timer's stops
        /// and starts (pauses and resumes) inside the workout, in time order.
        func events(from start: Date, to end: Date) -> [WorkoutEvent] {
            var events: [WorkoutEvent] = []
            func span(_ message: FITMessage, _ startField: FITProfile.Field, _ elapsedField: FITProfile.Field) -> (Date, Date)? {
                guard let from = message.value(startField) else { return nil }
                let begin = max(start, FITImport.date(from))
                let finish = min(end, FITImport.date(from + (message.value(elapsedField) ?? 0)))
                return begin <= end && finish >= begin ? (begin, finish) : nil
            }
            var paused = false
            for message in messages {
                switch message.globalNumber {
                case FITProfile.Message.lap:
                    if let (from, to) = span(message, FITProfile.Lap.startTime, FITProfile.Lap.totalElapsedTime) {
                        events.append(WorkoutEvent(.segment, startDate: from, endDate: to))
                    }
                case FITProfile.Message.length:
                    // Idle lengths are the rests between sets: HealthKit has no event for them.
                    guard message.integer(FITProfile.Length.lengthType) == 1,
                          let (from, to) = span(message, FITProfile.Length.startTime, FITProfile.Length.totalElapsedTime)
                    else { continue }
                    var metadata: [String: MetadataValue] = [:]
                    if let stroke = message.integer(FITProfile.Length.swimStroke) {
                        metadata[MetadataKey.swimmingStrokeStyle] = .number(Double(FITImport.strokeStyle(stroke)))
                    }
                    events.append(WorkoutEvent(.lap, startDate: from, endDate: to, metadata: metadata))
                case FITProfile.Message.event:
                    // The timer (event 0): stop (1) or stop all (4) pause it, start (0) resumes it.
                    guard message.integer(FITProfile.Event.event) == 0, let time = message.timestamp else { continue }
                    let at = FITImport.date(Double(time))
                    guard at > start, at < end else { continue }
                    switch message.integer(FITProfile.Event.eventType) {
                    case 1?, 4?:
                        if !paused { events.append(WorkoutEvent(.pause, startDate: at)) }
                        paused = true
                    case 0?:
                        if paused { events.append(WorkoutEvent(.resume, startDate: at)) }
                        paused = false
                    default: break
                    }
                default: continue
                }
            }
            return events.sorted { ($0.startDate, $0.type) < ($1.startDate, $1.type) }
        }

        /// The records' positions inside the workout's interval (with the route's slack), in time
        /// order: the workout's route.
        func route(from start: Date, to end: Date) -> [RouteLocation] {
            var route: [RouteLocation] = []
            let slack = WorkoutRouteValue.workoutSlack
            for record in messages where record.globalNumber == FITProfile.Message.record {
                guard let time = record.timestamp,
                      let latitude = record.value(FITProfile.Record.latitude), let longitude = record.value(FITProfile.Record.longitude)
                else { continue }
                let at = FITImport.date(Double(time))
                guard at >= start.addingTimeInterval(-slack), at <= end.addingTimeInterval(slack) else { continue }
                let location = RouteLocation(
                    timestamp: at, latitude: FITProfile.degrees(semicircles: latitude), longitude: FITProfile.degrees(semicircles: longitude),
                    altitude: record.value(FITProfile.Record.enhancedAltitude) ?? record.value(FITProfile.Record.altitude),
                    speed: record.value(FITProfile.Record.enhancedSpeed) ?? record.value(FITProfile.Record.speed))
                if (-90...90).contains(location.latitude), (-180...180).contains(location.longitude), at >= (route.last?.timestamp ?? .distantPast) {
                    route.append(location)
                }
            }
            return route
        }

        /// The `hrv` messages inside the workout as one heartbeat series: each message's R-R
        /// intervals in order from the time of the message before the first (hrv messages carry
        /// no time of their own); an invalid interval is a gap before the next beat.
        func heartbeats(from start: Date, to end: Date, key: String) -> [Sample] {
            var seriesStart: Date?
            var lastTime: Date?
            var elapsed = 0.0
            var beats: [Heartbeat] = []
            var gap = false
            for message in messages {
                if message.globalNumber != FITProfile.Message.hrv {
                    if let time = message.timestamp { lastTime = FITImport.date(Double(time)) }
                    continue
                }
                if seriesStart == nil {
                    guard let lastTime, lastTime >= start, lastTime <= end else { continue }
                    seriesStart = lastTime
                }
                for interval in message.values(FITProfile.HRV.time) {
                    guard let interval, interval > 0 else {
                        gap = true
                        continue
                    }
                    elapsed += interval
                    beats.append(Heartbeat(timeSinceSeriesStart: elapsed, precededByGap: gap))
                    gap = false
                }
            }
            guard let seriesStart, !beats.isEmpty else { return [] }
            return [Sample(
                type: "HKDataTypeIdentifierHeartbeatSeries", startDate: seriesStart, endDate: seriesStart.addingTimeInterval(elapsed),
                value: .heartbeatSeries(HeartbeatSeries(beats: beats)), sourceRevision: identity.source, device: identity.device,
                metadata: [MetadataKey.syncIdentifier: .string("\(key)|hrv"), MetadataKey.syncVersion: .number(1)])]
        }
    }

    /// The records' samples inside a workout's interval (heart rate, cadence, power, speed and
    /// distance, by the sport of the session each falls in), made a batch at a time as they are
    /// saved.
    ///
    /// Each sample is named by its record's time (its type tells it from the others of the
    /// record): a file whose messages are written in another order (Garmin Connect's re-encoding
    /// with the summary first) names the same samples.
    struct RecordSamples: SampleBatches {
        /// What the samples take of one record inside the workout: its time and figures (NaN
        /// where the record has none). A file's messages are let go once it is read; these rows
        /// (48 bytes a record, against about 350 for a record message of eight fields) are what stays until it is saved.
        struct Row {
            var time: UInt32
            var heartRate: Double
            var cadence: Double
            var power: Double
            var speed: Double
            var distance: Double
        }

        let rows: [Row]
        let sessions: [Activity.Session]
        let key: String
        let source: SourceRevision
        let device: Device
        /// The next row to read.
        var index = 0
        /// The last record's distance: each distance sample is the way since it, within a session.
        var previousDistance: (time: Date, distance: Double, session: Int)?

        init(activity: Activity, sessions: [Activity.Session], start: Date, end: Date, key: String) {
            var rows: [Row] = []
            for record in activity.messages where record.globalNumber == FITProfile.Message.record {
                guard let time = record.timestamp else { continue }
                let at = FITImport.date(Double(time))
                guard at >= start, at <= end else { continue }
                rows.append(Row(
                    time: time,
                    // A heart rate of 0 is no strap (Zwift writes 0 throughout).
                    heartRate: record.value(FITProfile.Record.heartRate).flatMap { $0 > 0 ? $0 : nil } ?? .nan,
                    cadence: record.value(FITProfile.Record.cadence) ?? .nan,
                    power: record.value(FITProfile.Record.power) ?? .nan,
                    speed: record.value(FITProfile.Record.enhancedSpeed) ?? record.value(FITProfile.Record.speed) ?? .nan,
                    distance: record.value(FITProfile.Record.distance) ?? .nan))
            }
            self.rows = rows
            self.sessions = sessions
            self.key = key
            source = activity.identity.source
            device = activity.identity.device
        }

        mutating func next(_ limit: Int) -> [Sample] {
            var samples: [Sample] = []
            samples.reserveCapacity(limit + 4)
            // One clock reading for the batch, not two for each sample (its UUID and creation
            // date): a batch is made within a millisecond or two.
            let now = Date()
            while index < rows.count, samples.count < limit {
                let row = rows[index]
                index += 1
                let at = FITImport.date(Double(row.time))
                let session = sessions.lastIndex { $0.start <= at } ?? 0
                let sport = sessions[session].sport
                // The record's samples share one name (and one copy of its metadata).
                var metadata: [String: MetadataValue]?
                func add(_ type: String?, _ value: Double, _ unit: SalusUnit, from: Date? = nil) {
                    guard let type, value.isFinite else { return }
                    if metadata == nil {
                        metadata = [MetadataKey.syncIdentifier: .string("\(key)|\(row.time)"), MetadataKey.syncVersion: .number(1)]
                    }
                    samples.append(Sample(
                        uuid: UUIDv7.make(at: now), type: TypeIdentifier(type), startDate: from ?? at, endDate: at,
                        value: .quantity(Quantity(value: value, unit: unit)), sourceRevision: source, device: device, metadata: metadata!,
                        creationDate: now))
                }
                add("HKQuantityTypeIdentifierHeartRate", row.heartRate, .countPerMinute)
                add(sport.cadenceType, row.cadence, .countPerMinute)
                add(sport.powerType, row.power, .watt)
                add(sport.speedType, row.speed, FITImport.metersPerSecond)
                if !row.distance.isNaN {
                    // Distance is cumulative in the file: each sample is the way since the record
                    // before, within one session.
                    let distance = row.distance
                    if let previous = previousDistance, previous.session == session, distance > previous.distance, at > previous.time {
                        add(sport.distanceType, distance - previous.distance, .meter, from: previous.time)
                    }
                    previousDistance = (at, distance, session)
                }
            }
            return samples
        }
    }

    /// `HKSwimmingStrokeStyle` of a FIT `swim_stroke`: freestyle 2, backstroke 3, breaststroke 4,
    /// butterfly 5, mixed and individual medley 1 (mixed); drill, which HealthKit has no style
    /// for, 0 (unknown).
    static func strokeStyle(_ stroke: UInt64) -> Int {
        switch stroke {
        case 0: 2
        case 1: 3
        case 2: 4
        case 3: 5
        case 5, 6: 1
        default: 0
        }
    }

    /// A UUID named by `text` (its SHA-1-free stand-in: two FNV-1a hashes), so that a workout
    /// imported again has the UUID it had; the store keeps the one it holds either way.
    static func uuid(_ text: String) -> UUID {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash: UInt64 = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01B3
            }
            return hash
        }
        let high = fnv(0xCBF2_9CE4_8422_2325)
        let low = fnv(0x8422_2325_CBF2_9CE4)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
            bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

// MARK: Monitoring, wellness and sleep

extension FITImport {
    /// A watch's all-day messages as samples: `monitoring`'s steps (from its cumulative
    /// walking and running cycles), heart rate and intensity minutes, and `sleep_level`'s
    /// stages.
    struct Monitoring {
        var messages: [FITMessage]
        var identity: Identity

        func samples() -> [Sample] {
            var samples: [Sample] = []
            var lastSteps: [UInt64: (time: Date, steps: UInt64)] = [:]
            var lastMonitoring: Date?
            var sleep: (start: Date, value: Int, time: UInt32)?
            /// A sample named by the file and its time (and what else tells it from others of its type then).
            func add(_ type: String, _ start: Date, _ end: Date, _ value: SampleValue, name: String) {
                samples.append(Sample(
                    type: TypeIdentifier(type), startDate: start, endDate: end, value: value, sourceRevision: identity.source,
                    device: identity.device,
                    metadata: [MetadataKey.syncIdentifier: .string("\(identity.key)|\(name)"), MetadataKey.syncVersion: .number(1)]))
            }
            for message in messages {
                guard let time = message.timestamp else { continue }
                let at = FITImport.date(Double(time))
                switch message.globalNumber {
                case FITProfile.Message.monitoring:
                    let previous = lastMonitoring
                    lastMonitoring = at
                    // Walking (6) and running (1) count steps; their cycles are the day's so far,
                    // and a smaller figure begins a new day.
                    if let activity = message.integer(FITProfile.Monitoring.activityType), activity == 1 || activity == 6,
                       let steps = message.integer(FITProfile.Monitoring.cycles)
                    {
                        if let last = lastSteps[activity], steps > last.steps, at > last.time {
                            add("HKQuantityTypeIdentifierStepCount", last.time, at, .quantity(Quantity(value: Double(steps - last.steps), unit: .count)), name: "\(time)|\(activity)")
                        }
                        lastSteps[activity] = (at, steps)
                    }
                    if let rate = message.value(FITProfile.Monitoring.heartRate), rate > 0 {
                        add("HKQuantityTypeIdentifierHeartRate", at, at, .quantity(Quantity(value: rate, unit: .countPerMinute)), name: "\(time)")
                    }
                    let minutes = (message.value(FITProfile.Monitoring.moderateActivityMinutes) ?? 0)
                        + (message.value(FITProfile.Monitoring.vigorousActivityMinutes) ?? 0)
                    if minutes > 0 {
                        let from = previous.map { min($0, at.addingTimeInterval(-minutes * 60)) } ?? at.addingTimeInterval(-minutes * 60)
                        add("HKQuantityTypeIdentifierAppleExerciseTime", from, at, .quantity(Quantity(value: minutes, unit: .minute)), name: "\(time)")
                    }
                case FITProfile.Message.sleepLevel:
                    if let open = sleep, at > open.start {
                        add("HKCategoryTypeIdentifierSleepAnalysis", open.start, at, .category(open.value), name: "\(open.time)")
                    }
                    sleep = message.integer(FITProfile.SleepLevel.level).flatMap(FITImport.sleepValue).map { (at, $0, time) }
                default:
                    continue
                }
            }
            return samples
        }
    }

    /// `HKCategoryValueSleepAnalysis` of a FIT `sleep_level`: awake 2, light 3 (asleepCore),
    /// deep 4, rem 5; unmeasurable none.
    static func sleepValue(_ level: UInt64) -> Int? {
        switch level {
        case 1: 2
        case 2: 3
        case 3: 4
        case 4: 5
        default: nil
        }
    }
}
