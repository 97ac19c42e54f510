import Foundation
import SalusModel

/// The values of HKCategoryTypeIdentifierSleepAnalysis (HKCategoryValueSleepAnalysis raw values).
package enum SleepStage: Int, Codable, CaseIterable, Sendable {
    case inBed = 0
    case asleep = 1
    case awake = 2
    case core = 3
    case deep = 4
    case rem = 5

    /// The name the page and the JSON use.
    package var key: String {
        switch self {
        case .inBed: "inBed"
        case .asleep: "asleep"
        case .awake: "awake"
        case .core: "core"
        case .deep: "deep"
        case .rem: "rem"
        }
    }

    /// How a person reads it.
    package var label: String {
        switch self {
        case .inBed: "In bed"
        case .asleep: "Asleep"
        case .awake: "Awake"
        case .core: "Core"
        case .deep: "Deep"
        case .rem: "REM"
        }
    }

    /// Whether the stage counts as sleep (asleep, core, deep, REM).
    package var isSleep: Bool { self != .inBed && self != .awake }

    /// The row of a hypnogram, top to bottom: awake, REM, core and unspecified sleep, deep; in
    /// bed (no stage known) sits under them all.
    package var depth: Int {
        switch self {
        case .awake: 0
        case .rem: 1
        case .core, .asleep: 2
        case .deep: 3
        case .inBed: 4
        }
    }
}

/// One sleep-analysis sample: a stage over [start, end).
package struct StageInterval: Hashable, Sendable {
    package var stage: SleepStage
    package var start: Date
    package var end: Date

    package init(stage: SleepStage, start: Date, end: Date) {
        self.stage = stage
        self.start = start
        self.end = end
    }
}

/// One night: the sleep-analysis samples that follow each other with gaps shorter than
/// ``Nights/gap``, named after the local day it ended on (the morning).
package struct Night: Hashable, Sendable {
    /// The day the night ended, in the report's time zone: "2026-11-20".
    package var day: String
    package var start: Date
    package var end: Date
    /// The samples, by start.
    package var intervals: [StageInterval]

    /// Seconds spent in `stage`: the union of its samples, so that two sources recording the same
    /// stage at the same time count once.
    package func seconds(in stage: SleepStage) -> TimeInterval {
        Nights.unionLength(intervals.filter { $0.stage == stage })
    }

    /// Seconds asleep, in any sleep stage (union).
    package var secondsAsleep: TimeInterval {
        Nights.unionLength(intervals.filter { $0.stage.isSleep })
    }

    /// The stages the night has samples of, in hypnogram order.
    package var stages: [SleepStage] {
        Set(intervals.map(\.stage)).sorted { ($0.depth, $0.rawValue) < ($1.depth, $1.rawValue) }
    }

    /// The stage shown at `instant`: where samples overlap, the one a person would want to see —
    /// awake over REM over core over deep over in bed (a staged source over a phone's in-bed span).
    package func stage(at instant: Date) -> SleepStage? {
        intervals.filter { $0.start <= instant && instant < $0.end }
            .min { rank($0.stage) < rank($1.stage) }?.stage
    }

    private func rank(_ stage: SleepStage) -> Int {
        switch stage {
        case .awake: 0
        case .rem: 1
        case .deep: 2
        case .core: 3
        case .asleep: 4
        case .inBed: 5
        }
    }
}

/// Gathers sleep-analysis samples into nights.
package enum Nights {
    /// Samples further apart than this belong to different nights: 3 hours.
    package static let gap: TimeInterval = 3 * 3600

    /// The nights of `intervals`, oldest first. Intervals whose end is not after their start are
    /// left out.
    package static func group(_ intervals: [StageInterval], timeZone: TimeZone) -> [Night] {
        let sorted = intervals.filter { $0.end > $0.start }.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var nights: [Night] = []
        var current: [StageInterval] = []
        var end = Date.distantPast
        func close() {
            guard let first = current.first else { return }
            nights.append(Night(day: day(of: end, timeZone: timeZone), start: first.start, end: end, intervals: current))
            current = []
        }
        for interval in sorted {
            if !current.isEmpty, interval.start.timeIntervalSince(end) > gap { close() }
            if current.isEmpty { end = interval.end } else { end = max(end, interval.end) }
            current.append(interval)
        }
        close()
        return nights
    }

    /// The length of the union of `intervals`.
    package static func unionLength(_ intervals: [StageInterval]) -> TimeInterval {
        let sorted = intervals.sorted { $0.start < $1.start }
        var total: TimeInterval = 0
        var runStart: Date?
        var runEnd = Date.distantPast
        for interval in sorted {
            if let start = runStart, interval.start <= runEnd {
                runEnd = max(runEnd, interval.end)
                runStart = start
            } else {
                if let start = runStart { total += runEnd.timeIntervalSince(start) }
                runStart = interval.start
                runEnd = interval.end
            }
        }
        if let start = runStart { total += runEnd.timeIntervalSince(start) }
        return total
    }

    /// "2026-11-20" for `date` in `timeZone`.
    package static func day(of date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// "7h05" for 25,500 s.
    package static func duration(_ seconds: TimeInterval) -> String {
        guard let minutes = Int(rounding: seconds / 60) else { return "\(ReportNumbers.whole(seconds / 3600))h" }
        return "\(minutes / 60)h\(String(format: "%02d", minutes % 60))"
    }
}
