import Foundation
import SalusTestSupport
import SalusModel
import SalusStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Crash safety")
struct CrashSafetyTests {
    /// The crash-test executable, built next to the test bundle.
    static func executable() throws -> URL {
        let test = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let candidate = test.deletingLastPathComponent().appendingPathComponent("salus-store-crashtest")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw StoreError(code: .invalidArgument, message: "salus-store-crashtest not found at \(candidate.path)")
        }
        return candidate
    }

    @Test("SIGKILL during batch saves, 20 times: integrity ok, every acknowledged batch whole, no partial batch")
    func killDuringBatchSaves() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("crash.sqlite").path
        let batchSize = 200
        var acknowledged = Set<Int>()
        var generator = SystemRandomNumberGenerator()

        for round in 0..<20 {
            let process = Process()
            process.executableURL = try Self.executable()
            process.arguments = [path, "\(round * 10_000)", "10000", "\(batchSize)"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try ProcessLaunch.run(process)

            // Wait for a random number of acknowledgements, then a random moment more, then kill.
            let wanted = Int.random(in: 1...4, using: &generator)
            var buffer = Data()
            var lines: [String] = []
            while lines.count < wanted {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer += chunk
                lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
            }
            usleep(UInt32.random(in: 0...20_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            buffer += output.fileHandleForReading.readDataToEndOfFile()
            let text = String(decoding: buffer, as: UTF8.self)
            // Only whole lines count: a batch is acknowledged once its line was printed.
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) where text.contains(line + "\n") {
                if line.hasPrefix("committed "), let batch = Int(line.dropFirst("committed ".count)) {
                    acknowledged.insert(batch)
                }
            }

            let database = try Database(path: path, create: false, readOnly: true)
            #expect(try database.scalarText("PRAGMA integrity_check") == "ok")
            let statement = try database.prepare(
                "SELECT CAST(number_value AS INTEGER), count(*) FROM metadata WHERE key = 'batch' GROUP BY 1",
                cached: false)
            var present: [Int: Int] = [:]
            while try statement.step() { present[Int(statement.int64(0))] = Int(statement.int64(1)) }
            for (batch, count) in present {
                #expect(count == batchSize, "batch \(batch) has \(count) of \(batchSize) samples")
            }
            for batch in acknowledged {
                #expect(present[batch] == batchSize, "acknowledged batch \(batch) is missing")
            }
            let samples = try database.scalarText("SELECT count(*) FROM samples")
            #expect(samples == "\(present.count * batchSize)")
            database.close()
        }
        #expect(acknowledged.count >= 20)
    }
}
