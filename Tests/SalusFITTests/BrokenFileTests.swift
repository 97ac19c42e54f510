import Foundation
import SalusFIT
import Testing

/// The broken files of shared/data/fit, and every kind of malformed input: the decoder returns
/// what is whole and a problem naming its byte and what was expected; it never traps.
@Suite("FIT: broken and malformed files")
struct BrokenFileTests {
    static func file(_ name: String) throws -> OracleFile {
        try #require(Oracle.files.first { $0.file == name }, "\(name) not in oracle.json")
    }

    @Test("Strava's broken file: 473 records, the 2085 timestamp refused, stopped at local message 11, 19 bytes missing")
    func strava() throws {
        let oracle = try Self.file("dtcooper-python-fitparse/strava-android-app-201.10-b1218918.fit")
        let decoding = FITDecoder().decode(try oracle.contents())
        let records = decoding.messages(FITProfile.Message.record)
        #expect(records.count == oracle.records.count)
        // The last record's time field holds what the SDK gives; the decoder refuses it.
        let last = try #require(records.last)
        let garbage = try #require(oracle.records.last?.timestamp.flatMap(fitTime))
        #expect(last.field(253) == .unsigned(UInt64(garbage)))
        #expect(last.timestamp == nil)
        // The SDK: "at byte: 7472 Invalid local message number", the byte after the record
        // header; fitdecode: byte 7,471, the record header itself, as here.
        #expect(oracle.sdkErrors == ["FIT Runtime Error at byte: 7472 Invalid local message number"])
        #expect(decoding.problems.map(\.kind) == [.timestampOutOfRange, .undefinedLocalMessage, .truncated])
        #expect(decoding.problems.map(\.offset) == [last.offset, 7_471, 78_233])
        #expect(decoding.problems.map(\.isFatal) == [false, true, true])
        #expect(decoding.problems[0].message.contains("2085-12-21T16:46:58Z"))
        #expect(decoding.problems[1].message.contains("local message type 11"))
        #expect(decoding.problems[2].message.contains("19 bytes early"))
        // The session, written first, survives.
        #expect(decoding.messages(FITProfile.Message.session).first?.value(FITProfile.Session.totalDistance) == oracle.sessions?.first?.totalDistance)
    }

    @Test("nick.fit: cut off in its last record, a wrong file CRC, no session")
    func nick() throws {
        let oracle = try Self.file("dtcooper-python-fitparse/nick.fit")
        let bytes = try oracle.contents()
        let decoding = FITDecoder().decode(bytes)
        #expect(decoding.messages(FITProfile.Message.record).count == oracle.records.count)
        #expect(decoding.messages(FITProfile.Message.session).isEmpty)
        #expect(decoding.problems.map(\.kind) == [.truncated, .fileCRC])
        // The last record starts 17 bytes before the data's end and needs 28.
        #expect(decoding.problems.map(\.offset) == [403_437, bytes.count - 2])
        #expect(decoding.problems[0].message.contains("needs 27 bytes after its header; 16 remain before byte 403454"))
        #expect(decoding.problems.map(\.isFatal) == [true, false])
        #expect(decoding.files.first?.fileCRCValid == false)
    }

    @Test("COROS's misaligned fields: the event field of 1 byte typed uint32 is reported at each definition, nothing lost")
    func corosMisaligned() throws {
        let oracle = try Self.file("dtcooper-python-fitparse/coros-pace-2-cycling-misaligned-fields.fit")
        let decoding = FITDecoder().decode(try oracle.contents())
        #expect(decoding.problems.count == 5)
        #expect(decoding.problems.allSatisfy { $0.kind == .fieldSize && !$0.isFatal })
        #expect(decoding.problems.allSatisfy { $0.message.hasPrefix("message 21, field 3: size 1 is not a multiple of uint32's 4 bytes") })
        #expect(decoding.messages.count == oracle.messageCounts.values.reduce(0, +))
    }

    @Test("the other files decode without a problem (header CRC 0 is \"not computed\")", arguments: Oracle.files)
    func noProblem(_ oracle: OracleFile) throws {
        let broken = ["strava-android-app", "nick.fit", "coros-pace-2"]
        guard !broken.contains(where: oracle.file.contains) else { return }
        let decoding = FITDecoder().decode(try oracle.contents())
        #expect(decoding.problems == [])
        #expect(decoding.isWhole)
    }

    @Test("every prefix of a file: the messages of the whole file up to the cut, and a fatal problem; never a trap")
    func everyPrefix() throws {
        let bytes = try Self.file("tormoder-fit/unterminated-strings.fit").contents()
        let whole = FITDecoder().decode(bytes)
        #expect(whole.problems.isEmpty)
        for length in 0..<bytes.count {
            let decoding = FITDecoder().decode(Array(bytes[0..<length]))
            #expect(Array(whole.messages.prefix(decoding.messages.count)) == decoding.messages, "prefix of \(length) bytes")
            #expect(decoding.problems.contains { $0.isFatal && $0.offset <= length }, "prefix of \(length) bytes")
        }
    }

    @Test("random byte changes: no trap, problems inside the bytes, messages in order")
    func randomFlips() throws {
        let original = try Self.file("dtcooper-python-fitparse/garmin-fenix-5-run.fit").contents()
        var generator = SeededGenerator(state: 0xF17)
        for _ in 0..<1_500 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let decoding = FITDecoder().decode(bytes)
            #expect(decoding.problems.allSatisfy { $0.offset >= 0 && $0.offset <= bytes.count })
            #expect(zip(decoding.messages, decoding.messages.dropFirst()).allSatisfy { $0.offset < $1.offset })
        }
    }

    @Test("a definition of 255 fields of 255 bytes and nothing after: a truncation, no large allocation")
    func largestDefinition() {
        var builder = FITBuilder()
        builder.define(local: 0, global: 20, (0..<255).map { (UInt8($0), 255, BaseTypeByte.byte) })
        builder.data(local: 0, [1, 2, 3])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.messages.isEmpty)
        #expect(decoding.problems.first?.kind == .truncated)
        #expect(decoding.problems.first?.message.contains("needs 65025 bytes") == true)
    }

    @Test("the message limit stops the decoding with a problem")
    func messageLimit() throws {
        var options = FITDecoder.Options()
        options.maximumMessages = 10
        let decoding = FITDecoder(options: options).decode(try Self.file("dtcooper-python-fitparse/garmin-fenix-5-run.fit").contents())
        #expect(decoding.messages.count == 10)
        #expect(decoding.problems.map(\.kind) == [.tooManyMessages])
    }

    @Test("a visitor gets the same messages and nothing is kept")
    func visitor() throws {
        let bytes = try Self.file("tormoder-fit/unterminated-strings.fit").contents()
        var visited: [FITMessage] = []
        let decoding = bytes.withUnsafeBytes { raw in FITDecoder().decode(raw) { visited.append($0) } }
        #expect(decoding.messages.isEmpty)
        #expect(decoding.messageCount == visited.count)
        #expect(visited == FITDecoder().decode(bytes).messages)
    }
}
