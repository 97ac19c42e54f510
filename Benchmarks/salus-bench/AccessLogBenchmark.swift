import Foundation
import SalusProto
import SalusRPC
import SalusSpawn

/// What the access log costs the save and query paths: two salusd side by side, one recording
/// (the default) and one with the log off (`salusctl access --retention off`), each given the
/// store figure's saves and streamed queries, alternating trial by trial. The ratio is the
/// recording daemon's rate over the other's (1.00: no cost).
enum AccessLogBenchmark {
    static func run(
        directory: String, rowsPerTrial: Int, trials: Int,
        launch: (_ dataDirectory: String, _ socket: String) async throws -> (ChildProcess, RPCClient)
    ) async throws -> (results: [String: Double], table: [(String, String, String, String)]) {
        let (recordingDaemon, recordingPlain) = try await launch(directory + "/access-on", directory + "/access-on.sock")
        let (offDaemon, offPlain) = try await launch(directory + "/access-off", directory + "/access-off.sock")
        await recordingPlain.close()
        await offPlain.close()
        defer {
            for daemon in [recordingDaemon, offDaemon] {
                daemon.send(SIGTERM)
                daemon.waitUntilExit()
            }
        }
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = "org.salus.bench"
        let recording = try await RPCClient.connect(unixSocketPath: directory + "/access-on.sock", configuration: configuration)
        let off = try await RPCClient.connect(unixSocketPath: directory + "/access-off.sock", configuration: configuration)
        let offAdmin = try await RPCClient.connect(unixSocketPath: directory + "/access-off.sock.admin")
        var settings = Salus_V1_AccessLogSettings()
        settings.retentionSeconds = 0
        let set: Salus_V1_AccessLogSettings = try await offAdmin.unary(SalusMethods.AccessLog.setSettings, request: settings)
        precondition(set.retentionSeconds == 0, "salusd did not turn its access log off")
        await offAdmin.close()

        var saved = (recording: 0, off: 0)
        func save(_ client: RPCClient, from first: Int) async throws -> Double {
            let batches: [Salus_V1_SaveRequest] = stride(from: first, to: first + rowsPerTrial, by: StoreBenchmark.batchSize).map {
                var request = Salus_V1_SaveRequest()
                request.samples = ($0..<min(first + rowsPerTrial, $0 + StoreBenchmark.batchSize)).map(StoreBenchmark.sample)
                return request
            }
            let start = ContinuousClock.now
            for batch in batches {
                let _: Salus_V1_SaveResponse = try await client.unary(SalusMethods.Store.save, request: batch)
            }
            return Double(rowsPerTrial) / StoreBenchmark.seconds(ContinuousClock.now - start)
        }
        let saves = try await Comparison.interleaved(trials: trials) {
            defer { saved.recording += rowsPerTrial }
            return try await save(recording, from: saved.recording)
        } baseline: {
            defer { saved.off += rowsPerTrial }
            return try await save(off, from: saved.off)
        }
        let queries = try await Comparison.interleaved(trials: trials) {
            try await StoreBenchmark.query(recording, pinned: false, expecting: saved.recording)
        } baseline: {
            try await StoreBenchmark.query(off, pinned: false, expecting: saved.off)
        }
        await recording.close()
        await off.close()

        // Both daemons did what was measured: the recording one counted every call, the other none.
        func writesLogged(_ socket: String) async throws -> UInt64 {
            let admin = try await RPCClient.connect(unixSocketPath: socket + ".admin")
            let log: Salus_V1_AccessLogResponse = try await admin.unary(SalusMethods.AccessLog.list, request: Salus_V1_AccessLogRequest())
            await admin.close()
            return log.entries.filter { $0.kind == .write }.reduce(0) { $0 + $1.count }
        }
        let calls = UInt64(trials * ((rowsPerTrial + StoreBenchmark.batchSize - 1) / StoreBenchmark.batchSize))
        let loggedOn = try await writesLogged(directory + "/access-on.sock")
        let loggedOff = try await writesLogged(directory + "/access-off.sock")
        precondition(loggedOn == calls, "the recording salusd logged \(loggedOn) saves of \(calls)")
        precondition(loggedOff == 0, "the salusd with its log off logged \(loggedOff) saves")

        var results: [String: Double] = [:]
        saves.record(
            into: &results, key: "access_log_save_rows_per_s", baselineKey: "access_log_off_save_rows_per_s",
            ratioKey: "access_log_save_ratio")
        queries.record(
            into: &results, key: "access_log_query_rows_per_s", baselineKey: "access_log_off_query_rows_per_s",
            ratioKey: "access_log_query_ratio")
        let table = [
            tableRow("store save, access log recording / off: rows/s", saves, digits: 0),
            tableRow("store sample query, access log recording / off: rows/s", queries, digits: 0),
        ]
        return (results, table)
    }
}
