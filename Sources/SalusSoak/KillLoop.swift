#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusSpawn

/// Runs salus-store-crashtest and kills it with SIGKILL at a random moment, again and again on
/// one store, checking the store after every kill (`KillChecker`).
package struct KillLoop: Sendable {
    /// The salus-store-crashtest executable.
    package var executable: URL
    /// The store's path (its folder holds `attachments/` too).
    package var databasePath: String
    /// Samples per save.
    package var size = 50
    /// Acknowledgements to wait for before the kill: a random number in this range.
    package var acknowledgementsBeforeKill = 1...12
    /// A further random wait before the kill, in microseconds.
    package var delayBeforeKill: ClosedRange<UInt32> = 0...20_000

    package init(executable: URL, databasePath: String) {
        self.executable = executable
        self.databasePath = databasePath
    }

    /// What the kills found.
    package struct Report: Sendable {
        package var kills = 0
        /// Operations acknowledged, by kind.
        package var acknowledged: [CrashOperation: Int] = [:]
        /// Operations running at a kill, by kind, and how many of them had committed.
        package var killedDuring: [CrashOperation: Int] = [:]
        package var committedUnacknowledged: [CrashOperation: Int] = [:]
        package var lost: [String] = []
        package var partial: [String] = []
        package var integrityFailures: [String] = []
        /// Kills whose child exited by itself before the signal (it should not).
        package var notKilled = 0
        package var seconds = 0.0

        package var passed: Bool { lost.isEmpty && partial.isEmpty && integrityFailures.isEmpty && notKilled == 0 }
    }

    /// Runs `kills` rounds, or fewer when `deadline` passes first.
    package func run(
        kills: Int, deadline: ContinuousClock.Instant? = nil,
        progress: (Int, Report) -> Void = { _, _ in }
    ) throws -> Report {
        var report = Report()
        var checker = KillChecker(size: size)
        var verifiedAttachments = Set<UUID>()
        var generator = SystemRandomNumberGenerator()
        let start = ContinuousClock.now
        let operationsPerRun = 60_000
        for round in 0..<kills {
            if let deadline, ContinuousClock.now >= deadline { break }
            let first = round * operationsPerRun
            let process = try ChildProcess(
                executable: executable.path, arguments: [databasePath, "\(first)", "\(operationsPerRun)", "\(size)"],
                standardOutput: .pipe, standardError: .null)

            // Wait for a random number of acknowledgements, then a random moment more, then kill.
            let wanted = Int.random(in: acknowledgementsBeforeKill, using: &generator)
            guard let descriptor = process.outputDescriptor else { preconditionFailure("a .pipe output has a descriptor") }
            var buffer: [UInt8] = []
            while buffer.reduce(0, { $0 + ($1 == 10 ? 1 : 0) }) < wanted, ChildProcess.read(descriptor, into: &buffer) {}
            usleep(UInt32.random(in: delayBeforeKill, using: &generator))
            process.send(SIGKILL)
            if process.waitUntilExit() != .signalled(SIGKILL) { report.notKilled += 1 }
            buffer += ChildProcess.readToEnd(descriptor)

            // Only whole lines count: an operation is acknowledged once its line was printed.
            var acknowledged: [Int] = []
            let text = String(decoding: buffer, as: UTF8.self)
            // The piece after the last newline is empty or a line cut short.
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            where line.hasPrefix("committed ") {
                if let operation = Int(line.dropFirst("committed ".count)) { acknowledged.append(operation) }
            }
            let inFlight = (acknowledged.last ?? (first - 1)) + 1
            for operation in acknowledged { report.acknowledged[CrashOperation.kind(of: operation), default: 0] += 1 }
            report.killedDuring[CrashOperation.kind(of: inFlight), default: 0] += 1

            let observed = try CrashStoreState.read(path: databasePath, verified: &verifiedAttachments)
            let findings = checker.check(observed: observed, acknowledged: acknowledged, inFlight: inFlight)
            if findings.inFlightCommitted { report.committedUnacknowledged[CrashOperation.kind(of: inFlight), default: 0] += 1 }
            report.lost += findings.lost.map { "kill \(round + 1): \($0)" }
            report.partial += findings.partial.map { "kill \(round + 1): \($0)" }
            if let integrity = findings.integrity { report.integrityFailures.append("kill \(round + 1): \(integrity)") }
            report.kills += 1
            progress(round + 1, report)
        }
        let elapsed = ContinuousClock.now - start
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }
}
