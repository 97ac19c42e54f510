import Foundation
import SalusKit
import SalusModel

/// The diary's shared pieces: its app id, its connection and how it prints samples.
enum Diary {
    /// The app id the diary declares; the daemon records it as the source of what it saves.
    static let appID = "org.example.sleepdiary"

    /// Sleep analysis, the one type the diary keeps.
    static let sleep = SampleType.category(.sleepAnalysis)

    /// Connects to `--socket`, else `SALUS_SOCKET`, else the default app socket, and asks the
    /// owner to let the diary read and write sleep analysis (answered at once when already
    /// answered; otherwise this waits for `salusctl consent`).
    static func connect(_ arguments: Arguments) async throws -> HealthStore {
        let store = try await HealthStore.connect(socketPath: arguments["--socket"], appID: appID, appName: "Sleep diary", appVersion: "1.0")
        try await store.requestAuthorization(toShare: [sleep], read: [sleep])
        return store
    }

    /// The stage names accepted by `add --stage`.
    static func stage(_ name: String) throws -> CategoryValueSleepAnalysis {
        let lowered = name.lowercased()
        if let stage = CategoryValueSleepAnalysis.allCases.first(where: {
            $0.description.lowercased() == lowered || $0.description.lowercased() == "asleep" + lowered
        }) {
            return stage
        }
        throw DiaryError("--stage: \"\(name)\" is not a sleep stage; expected one of core, deep, rem, awake, inBed, asleepUnspecified")
    }

    /// "23:30–00:15 asleepDeep  45 min  <uuid>", in the sample's own time zone when it has one.
    static func line(_ sample: Sample) -> String {
        let clock = DateFormatter()
        clock.locale = Locale(identifier: "en_US_POSIX")
        clock.dateFormat = "HH:mm"
        clock.timeZone = sample.metadata[MetadataKey.timeZone]?.stringValue.flatMap(TimeZone.init(identifier:)) ?? .current
        let stage = sample.sleepAnalysisValue?.description ?? "value \(sample.value)"
        let minutes = Int((sample.endDate.timeIntervalSince(sample.startDate) / 60).rounded())
        let stageColumn = stage.padding(toLength: 17, withPad: " ", startingAt: 0)
        return "\(clock.string(from: sample.startDate))–\(clock.string(from: sample.endDate)) \(stageColumn) \(minutes) min  \(sample.uuid.uuidString.lowercased())"
    }

    /// Total minutes of `samples`.
    static func minutes(_ samples: [Sample]) -> Int {
        Int((samples.reduce(0) { $0 + $1.endDate.timeIntervalSince($1.startDate) } / 60).rounded())
    }
}

/// Writes a line to standard output at once (unbuffered), so that a terminal or a pipe sees
/// each update as it happens.
func say(_ text: String) {
    do {
        try FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    } catch {
        // The reader has gone (a closed pipe): nobody is listening any more.
        exit(0)
    }
}
