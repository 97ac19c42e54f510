import Foundation
import SalusTestSupport
import Testing

/// SQLite's process-wide settings, made by the first connection Salus opens.
@Suite("SQLite settings")
struct SQLiteSettingsTests {
    @Test("SQLite does not count the memory it allocates in a process whose store opened it first: the count took a global mutex around every allocation and free of every connection")
    func memoryNotCounted() throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A process of its own: in this one, another suite may have opened SQLite first.
        let process = Process()
        process.executableURL = try CrashSafetyTests.executable()
        process.arguments = ["memory", directory.appendingPathComponent("memory.sqlite").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // Counted, a store with a thousand samples holds hundreds of KiB.
        #expect(printed == "sqlite memory 0\n")
    }
}
