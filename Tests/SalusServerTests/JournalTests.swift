#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SalusServer
import Testing

/// The journal's native protocol, as salusd writes it under systemd.
@Suite("Journal entries")
struct JournalTests {
    /// A datagram socket bound at a fresh path, standing in for journald.
    final class FakeJournal {
        let path: String
        let descriptor: CInt

        init() throws {
            let directory = try ServerHarness.makeTemporaryDirectory()
            path = directory.appendingPathComponent("journal.socket").path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
                buffer[bytes.count] = 0
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// The next datagram, parsed into fields (binary-safe values included).
        func receive() -> [String: String]? {
            var buffer = [UInt8](repeating: 0, count: 256 * 1024)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            return Self.parse(Array(buffer.prefix(count)))
        }

        static func parse(_ bytes: [UInt8]) -> [String: String] {
            var fields: [String: String] = [:]
            var index = 0
            while index < bytes.count {
                let nameEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") }!
                let name = String(decoding: bytes[index..<nameEnd], as: UTF8.self)
                if bytes[nameEnd] == UInt8(ascii: "=") {
                    let valueEnd = bytes[(nameEnd + 1)...].firstIndex(of: UInt8(ascii: "\n"))!
                    fields[name] = String(decoding: bytes[(nameEnd + 1)..<valueEnd], as: UTF8.self)
                    index = valueEnd + 1
                } else {
                    var length: UInt64 = 0
                    for offset in 0..<8 { length |= UInt64(bytes[nameEnd + 1 + offset]) << (8 * UInt64(offset)) }
                    let start = nameEnd + 9
                    fields[name] = String(decoding: bytes[start..<(start + Int(length))], as: UTF8.self)
                    index = start + Int(length) + 1
                }
            }
            return fields
        }
    }

    @Test("a log message becomes one native entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, the code location and a SALUS_ field per metadata key; a value with a newline in the binary form")
    func nativeEntries() throws {
        let journal = try FakeJournal()
        let socket = try #require(JournalSocket(path: journal.path))
        var logger = Logger(label: "salusd") { JournalNativeLogHandler(label: $0, logLevel: .info, socket: socket) }
        logger[metadataKey: "connection"] = "7"
        logger.warning("authorization request refused", metadata: ["app": "org.example.eager", "request.id": "r3"])
        let entry = try #require(journal.receive())
        #expect(entry["MESSAGE"] == "salusd: authorization request refused app=org.example.eager connection=7 request.id=r3")
        #expect(entry["PRIORITY"] == "4")
        #expect(entry["SYSLOG_IDENTIFIER"] == "salusd")
        #expect(entry["SALUS_LOGGER"] == "salusd")
        #expect(entry["SALUS_APP"] == "org.example.eager")
        #expect(entry["SALUS_REQUEST_ID"] == "r3")
        #expect(entry["SALUS_CONNECTION"] == "7")
        #expect(entry["CODE_FILE"]?.hasSuffix("JournalTests.swift") == true)
        #expect(entry["CODE_LINE"].flatMap(Int.init) ?? 0 > 0)
        #expect(entry["CODE_FUNC"]?.hasPrefix("nativeEntries") == true)

        logger.info("refused plugin", metadata: ["reason": "line one\nline two"])
        let multiline = try #require(journal.receive())
        #expect(multiline["SALUS_REASON"] == "line one\nline two")
        #expect(multiline["PRIORITY"] == "6")
        logger.debug("below the level")
        logger.error("after")
        #expect(journal.receive()?["MESSAGE"] == "salusd: after connection=7")
    }

    @Test("field names: SALUS_ and the key in capitals, other characters as _, at most 64 characters")
    func fieldNames() {
        #expect(JournalEntry.fieldName(metadataKey: "app") == "SALUS_APP")
        #expect(JournalEntry.fieldName(metadataKey: "request.id") == "SALUS_REQUEST_ID")
        #expect(JournalEntry.fieldName(metadataKey: "é-x") == "SALUS___X")
        #expect(JournalEntry.fieldName(metadataKey: String(repeating: "k", count: 100)).count == 64)
    }

    @Test("stderr is the journal only when JOURNAL_STREAM names its device and inode; no socket, no handler")
    func journalStreamCheck() {
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        let mine = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalSocket.standardErrorIsJournal(environment: ["JOURNAL_STREAM": mine]))
        #expect(!JournalSocket.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]))
        #expect(!JournalSocket.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "yes"]))
        #expect(!JournalSocket.standardErrorIsJournal(environment: [:]))
        #expect(JournalSocket(path: "/nonexistent/journal.socket") == nil)
    }
}
