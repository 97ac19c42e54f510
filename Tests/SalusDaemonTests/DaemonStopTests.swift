import Foundation
import SalusSoak
import Testing

/// SIGTERM after real work: the daemon exits with status 0 and reports no crash.
@Suite("salusd stops cleanly after load")
struct DaemonStopTests {
    @Test("after mixed load with the tombstone purge firing every 100 ms, SIGTERM ends salusd with status 0 and no crash report")
    func stopAfterLoad() async throws {
        let daemon = try await DaemonHarness.start(
            arguments: [
                "--dev", "--authorization", "open", "--tombstone-retention", "1s", "--tombstone-purge-interval", "0.1s",
            ],
            bundledPlugins: true)
        var configuration = LoadConfiguration()
        configuration.clients = 8
        configuration.duration = 2
        configuration.batchSize = 20
        let report = try await LoadRun(socketPath: daemon.socketPath, daemonPID: daemon.process.processIdentifier, configuration: configuration).run()
        #expect(report.errors == 0, "\(report.errorMessages)")
        let status = try await daemon.stop()
        let crash = DaemonStop.crashLines(in: daemon.output)
        #expect(status == 0 && crash.isEmpty, "exit status \(status); crash lines: \(crash)\n\(daemon.output.suffix(4000))")
        #expect(daemon.output.contains("stopped"))
    }

    @Test("the stop check finds a crash report in a daemon's log")
    func crashLinesAreFound() {
        let log = """
            2026-01-01T00:00:00 info salusd: [salusd] stopped

            💣 Program crashed: Bad pointer dereference at 0x0000000000010a00

            Thread 7 "-qos.overcommit" crashed:
            """
        #expect(DaemonStop.crashLines(in: log).count == 2)
        #expect(DaemonStop.crashLines(in: "info salusd: [salusd] stopped\n").isEmpty)
    }
}
