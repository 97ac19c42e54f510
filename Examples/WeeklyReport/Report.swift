import Foundation
import SalusKit
import SalusModel

/// The report: anchored changes in, recomputed daily totals out.
enum Report {
    /// The app id the report declares.
    static let appID = "org.example.weeklyreport"

    /// Step count, the one type the report reads.
    static let steps = SampleType.quantity(.stepCount)

    /// `once`: reports what changed since the anchor in `--anchor-file`, then saves the new one.
    static func once(_ options: Options) async throws {
        guard let path = options["--anchor-file"] else {
            throw ReportError("--anchor-file: missing; expected --anchor-file FILE, where the anchor and the totals sent are kept")
        }
        let calendar = try calendar(options)
        var state = try ReportState.load(path)
        let store = try await connect(options)
        defer { Task { await store.close() } }
        try await catchUp(&state, store: store, calendar: calendar, path: path)
    }

    /// `follow`: catches up as `once` does, then reports every later change as it is committed.
    static func follow(_ options: Options) async throws {
        let path = options["--anchor-file"]
        let calendar = try calendar(options)
        let limit = try options.updates()
        var state = try path.map(ReportState.load) ?? ReportState()
        let store = try await connect(options)
        defer { Task { await store.close() } }
        try await catchUp(&state, store: store, calendar: calendar, path: path)

        let live = AnchoredObjectQueryDescriptor(predicates: [.samples(steps)], anchor: state.anchor)
        var updates = 0
        var first = true
        for try await changes in live.results(for: store) {
            try await report(changes, store: store, state: &state, calendar: calendar)
            if let path { try state.save(to: path) }
            // The first element holds what was committed since the catch-up; then one per commit.
            if first {
                note("following step count after anchor \(state.anchor?.description ?? "0") (Ctrl-C stops)")
                first = false
                continue
            }
            updates += 1
            if let limit, updates >= limit { return }
        }
    }

    /// Reports every change after `state.anchor`, 10,000 at a time, saving the state after each
    /// batch. An expired anchor starts over: every day is sent again.
    static func catchUp(_ state: inout ReportState, store: HealthStore, calendar: Calendar, path: String?) async throws {
        let start = state.anchor
        var sent = 0
        var hasMore = true
        while hasMore {
            let query = AnchoredObjectQueryDescriptor(predicates: [.samples(steps)], anchor: state.anchor, limit: 10_000)
            let changes: AnchoredObjectQueryResult
            do {
                changes = try await query.result(for: store)
            } catch {
                guard error.code == .anchorExpired else { throw error }
                note("anchor \(state.anchor?.description ?? "0") has expired: sending every day again")
                state = ReportState()
                continue
            }
            sent += try await report(changes, store: store, state: &state, calendar: calendar)
            if let path { try state.save(to: path) }
            hasMore = changes.hasMore
        }
        note("\(sent) days changed after anchor \(start?.description ?? "0"); new anchor \(state.anchor?.description ?? "0")")
    }

    /// Recomputes the days `changes` may have changed — one collection query per run of
    /// consecutive days — and sends those whose totals differ from the ones sent before.
    /// Returns how many were sent.
    @discardableResult
    static func report(
        _ changes: AnchoredObjectQueryResult, store: HealthStore, state: inout ReportState, calendar: Calendar
    ) async throws -> Int {
        let format = dayFormatter(calendar)
        var days = Set(changes.addedSamples.flatMap { Self.days(of: $0, in: calendar) })
        if !changes.deletedObjects.isEmpty {
            // A deletion does not say when its sample was: every day sent before is checked again.
            days.formUnion(state.totals.keys.compactMap { format.date(from: $0) })
        }
        var sent = 0
        for run in runs(of: days.sorted(), in: calendar) {
            let daily = StatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: .stepCount), options: .cumulativeSum,
                anchorDate: run.start, intervalComponents: DateComponents(day: 1), timeZone: calendar.timeZone)
            for day in try await daily.result(for: store, from: run.start, to: run.end).statistics() {
                let key = format.string(from: day.startDate)
                let total = try day.sumQuantity()?.doubleValue(for: .count) ?? 0
                guard state.totals[key] != total else { continue }
                state.totals[key] = total
                send(DayTotal(day: key, week: week(of: day.startDate, in: calendar), steps: total, sources: day.sources))
                sent += 1
            }
        }
        state.anchor = changes.newAnchor
        return sent
    }

    /// The starts of the days `sample` overlaps (the day of its start for an instant).
    static func days(of sample: Sample, in calendar: Calendar) -> [Date] {
        let last = sample.endDate > sample.startDate ? sample.endDate.addingTimeInterval(-0.000_001) : sample.startDate
        var days = [calendar.startOfDay(for: sample.startDate)]
        while let next = calendar.date(byAdding: .day, value: 1, to: days[days.count - 1]), next <= last {
            days.append(next)
        }
        return days
    }

    /// Sorted day starts as runs of consecutive days, each from its first day's start to the
    /// end of its last day.
    static func runs(of days: [Date], in calendar: Calendar) -> [DateInterval] {
        var runs: [DateInterval] = []
        for day in days {
            let end = calendar.date(byAdding: .day, value: 1, to: day)!
            if let last = runs.last, last.end == day {
                runs[runs.count - 1].end = end
            } else {
                runs.append(DateInterval(start: day, end: end))
            }
        }
        return runs
    }

    /// Connects to `--socket`, else `SALUS_SOCKET`, else the default app socket, and asks the
    /// owner to let the report read step count.
    static func connect(_ options: Options) async throws -> HealthStore {
        let store = try await HealthStore.connect(socketPath: options["--socket"], appID: appID, appName: "Weekly report", appVersion: "1.0")
        try await store.requestAuthorization(toShare: [], read: [steps])
        return store
    }

    /// A Gregorian calendar in `--time-zone`, else this machine's time zone.
    static func calendar(_ options: Options) throws -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try options.timeZone()
        return calendar
    }

    /// "2026-11-20", in the calendar's time zone.
    static func dayFormatter(_ calendar: Calendar) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }

    /// The ISO 8601 week of `day`: "2026-W47".
    static func week(of day: Date, in calendar: Calendar) -> String {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = calendar.timeZone
        let components = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: day)
        return String(format: "%04d-W%02d", components.yearForWeekOfYear ?? 0, components.weekOfYear ?? 0)
    }
}

/// One day of the chart, as sent: the merged steps of the day and the apps that counted.
struct DayTotal: Encodable {
    var day: String
    var week: String
    var steps: Double
    var sources: [String]
}

/// Sends a day: one JSON line on standard output, written at once so a pipe sees it.
func send(_ day: DayTotal) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let line = try? encoder.encode(day) else { return }
    do {
        try FileHandle.standardOutput.write(contentsOf: line + Data("\n".utf8))
    } catch {
        // The reader has gone (a closed pipe): nobody is listening any more.
        exit(0)
    }
}

/// Writes a progress line to standard error.
func note(_ text: String) {
    FileHandle.standardError.write(Data("weeklyreport: \(text)\n".utf8))
}
