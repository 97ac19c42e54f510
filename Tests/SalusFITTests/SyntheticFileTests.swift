import SalusFIT
import Testing

/// Files built byte by byte in the test (``FITBuilder``) for what the real files of
/// shared/data/fit do not hold, or hold only in passing: compressed timestamps, `timestamp_16`,
/// developer fields, big-endian definitions, invalid values of every base type, chains, a day of
/// monitoring with sleep levels.
@Suite("FIT: synthetic files")
struct SyntheticFileTests {
    /// 2021-09-08 (seconds since the FIT epoch), with its low five bits 30.
    static let start: UInt32 = 1_000_000_000 / 32 * 32 + 30

    /// A `file_id` of an activity created at `created`, as local message type 0.
    static func fileID(_ builder: inout FITBuilder, created: UInt32 = start, type: UInt8 = 4) {
        builder.define(local: 0, global: 0, [(0, 1, BaseTypeByte.enumeration), (1, 2, BaseTypeByte.uint16), (4, 4, BaseTypeByte.uint32)])
        builder.data(local: 0, [type] + le16(1) + le32(created))
    }

    @Test("compressed timestamps roll against the last timestamp, over the 32-second wrap")
    func compressedTimestamps() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        // A record with its timestamp, then records with a heart rate and a compressed time.
        builder.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (3, 1, BaseTypeByte.uint8)])
        builder.data(local: 1, le32(Self.start) + [100])
        builder.define(local: 2, global: 20, [(3, 1, BaseTypeByte.uint8)])
        builder.compressed(local: 2, offset: 31, [101])  // start + 1
        builder.compressed(local: 2, offset: 1, [102])  // wraps: start + 3
        builder.compressed(local: 2, offset: 1, [103])  // same offset: start + 3
        builder.compressed(local: 2, offset: 5, [104])  // start + 7
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.isEmpty)
        let records = decoding.messages(FITProfile.Message.record)
        #expect(records.map(\.timestamp) == [0, 1, 3, 3, 7].map { Self.start + $0 })
        #expect(records.map { $0.value(FITProfile.Record.heartRate) } == [100, 101, 102, 103, 104])
    }

    @Test("a compressed timestamp with no full one before it has no time, and says so")
    func compressedWithoutReference() {
        var builder = FITBuilder()
        builder.define(local: 2, global: 20, [(3, 1, BaseTypeByte.uint8)])
        let offset = 14 + builder.records.count
        builder.compressed(local: 2, offset: 4, [90])
        builder.compressed(local: 2, offset: 5, [91])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.messages.map(\.timestamp) == [nil, nil])
        #expect(decoding.messages.map { $0.value(FITProfile.Record.heartRate) } == [90, 91])
        #expect(decoding.problems.map(\.kind) == [.timestampWithoutReference])
        #expect(decoding.problems.first?.offset == offset)
        #expect(decoding.problems.first?.isFatal == false)
    }

    @Test("a day of monitoring: timestamp_16 rolled against the last full timestamp, steps, heart rate, sleep levels")
    func monitoringAndSleep() {
        // Near a 16-bit wrap: the full timestamp's low 16 bits are 0xFFF0.
        let full: UInt32 = 1_000_000_000 / 65_536 * 65_536 + 0xFFF0
        var builder = FITBuilder()
        Self.fileID(&builder, created: full, type: 32)
        // monitoring with its full timestamp, cycles (uint32, scale 2), activity type and heart rate
        builder.define(local: 1, global: 55, [(253, 4, BaseTypeByte.uint32), (3, 4, BaseTypeByte.uint32), (5, 1, BaseTypeByte.enumeration)])
        builder.data(local: 1, le32(full) + le32(3_000) + [6])
        // monitoring with only timestamp_16 and heart rate
        builder.define(local: 2, global: 55, [(26, 2, BaseTypeByte.uint16), (27, 1, BaseTypeByte.uint8)])
        builder.data(local: 2, le16(0xFFFE) + [58])  // full + 14 (0xFFFF is uint16's invalid value)
        builder.data(local: 2, le16(0x0010) + [61])  // past the wrap: full + 32
        builder.data(local: 2, le16(0x0E20) + [64])  // full + 3,632; timestamp_16 is no reference
        builder.data(local: 2, le16(0xFFF0) + [0xFF])  // full itself; heart rate invalid
        // sleep levels with full timestamps
        builder.define(local: 3, global: 275, [(253, 4, BaseTypeByte.uint32), (0, 1, BaseTypeByte.enumeration)])
        for (minutes, level) in [(0, 1), (10, 2), (40, 3), (95, 4), (120, 1)] as [(UInt32, UInt8)] {
            builder.data(local: 3, le32(full + 3_600 + minutes * 60) + [level])
        }
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.isEmpty)
        let monitoring = decoding.messages(FITProfile.Message.monitoring)
        #expect(monitoring.map(\.timestamp) == [0, 14, 32, 3_632, 0].map { full + $0 })
        #expect(monitoring.map { $0.value(FITProfile.Monitoring.heartRate) } == [nil, 58, 61, 64, nil])
        #expect(monitoring[0].value(FITProfile.Monitoring.cycles) == 1_500)
        #expect(monitoring[0].integer(FITProfile.Monitoring.cycles) == 3_000)  // the `steps` sub-field when walking
        #expect(monitoring[0].integer(FITProfile.Monitoring.activityType) == 6)
        let levels = decoding.messages(FITProfile.Message.sleepLevel)
        #expect(levels.compactMap { $0.integer(FITProfile.SleepLevel.level).map { FITProfile.SleepLevel.names[Int($0)] } } == ["awake", "light", "deep", "rem", "awake"])
        #expect(levels.map(\.timestamp) == [0, 10, 40, 95, 120].map { full + 3_600 + $0 * 60 })
    }

    @Test("developer fields: read with the base type their description gives, as bytes without one")
    func developerFields() throws {
        var builder = FITBuilder()
        Self.fileID(&builder)
        // developer_data_id: developer_data_index (3) 0
        builder.define(local: 1, global: 207, [(3, 1, BaseTypeByte.uint8)])
        builder.data(local: 1, [0])
        // field_description: index, number, base type, name, units, native message and field
        builder.define(
            local: 2, global: 206,
            [(0, 1, BaseTypeByte.uint8), (1, 1, BaseTypeByte.uint8), (2, 1, BaseTypeByte.uint8), (3, 8, BaseTypeByte.string),
             (8, 4, BaseTypeByte.string), (14, 2, BaseTypeByte.uint16), (15, 1, BaseTypeByte.uint8)])
        builder.data(local: 2, [0, 1, 0x84] + Array("Power\0\0\0".utf8) + Array("W\0\0\0".utf8) + le16(20) + [7])
        // a record with two developer fields: number 1 (described, uint16 ×2) and 9 (not described)
        builder.define(
            local: 3, global: 20, [(253, 4, BaseTypeByte.uint32)], developer: [(1, 4, 0), (9, 3, 0)])
        builder.data(local: 3, le32(Self.start) + le16(250) + le16(0xFFFF) + [1, 2, 3])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.isEmpty)
        let description = try #require(decoding.developerFields.first)
        #expect(decoding.developerFields.count == 1)
        #expect(description.fileIndex == 0 && description.developerDataIndex == 0 && description.number == 1)
        #expect(description.baseType == .uint16 && description.name == "Power" && description.units == "W")
        #expect(description.nativeMessageNumber == 20 && description.nativeFieldNumber == 7)
        let record = try #require(decoding.messages(FITProfile.Message.record).first)
        #expect(record.developerFields.map(\.developerDataIndex) == [0, 0])
        #expect(record.developerFields.map(\.number) == [1, 9])
        #expect(record.developerFields.map(\.value) == [.array([.unsigned(250), nil]), .bytes([1, 2, 3])])
        #expect(record.timestamp == Self.start)
    }

    @Test("a big-endian definition: its global number and multi-byte values read big-endian")
    func bigEndian() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        builder.define(
            local: 1, global: 20, bigEndian: true,
            [(253, 4, BaseTypeByte.uint32), (0, 4, BaseTypeByte.sint32), (1, 4, BaseTypeByte.sint32), (5, 4, BaseTypeByte.uint32),
             (2, 2, BaseTypeByte.uint16), (9, 2, BaseTypeByte.sint16), (3, 1, BaseTypeByte.uint8)])
        let latitude = Int32(-536_870_912)  // −45°
        builder.data(
            local: 1,
            be32(Self.start) + be32(UInt32(bitPattern: latitude)) + be32(1_073_741_824) + be32(123_456) + be16(3_000)
                + be16(0x7FFF) + [142])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.isEmpty)
        let record = decoding.messages(FITProfile.Message.record).first
        #expect(record?.globalNumber == 20)
        #expect(record?.timestamp == Self.start)
        #expect(record?.value(FITProfile.Record.latitude).map { FITProfile.degrees(semicircles: $0) } == -45)
        #expect(record?.value(FITProfile.Record.longitude).map { FITProfile.degrees(semicircles: $0) } == 90)
        #expect(record?.value(FITProfile.Record.distance) == 1_234.56)
        #expect(record?.value(FITProfile.Record.altitude) == 100)  // 3000 / 5 − 500
        #expect(record?.field(9) == nil)  // sint16 0x7FFF: invalid
        #expect(record?.value(FITProfile.Record.heartRate) == 142)
    }

    @Test("each base type's invalid value is absent; arrays keep their valid elements")
    func invalidValues() {
        var builder = FITBuilder()
        let types: [(UInt8, [UInt8])] = [
            (BaseTypeByte.enumeration, [0xFF]), (BaseTypeByte.sint8, [0x7F]), (BaseTypeByte.uint8, [0xFF]),
            (BaseTypeByte.sint16, le16(0x7FFF)), (BaseTypeByte.uint16, le16(0xFFFF)), (BaseTypeByte.sint32, le32(0x7FFF_FFFF)),
            (BaseTypeByte.uint32, le32(0xFFFF_FFFF)), (BaseTypeByte.string, [0, 0, 0]), (BaseTypeByte.float32, le32(0xFFFF_FFFF)),
            (BaseTypeByte.float64, [UInt8](repeating: 0xFF, count: 8)), (BaseTypeByte.uint8z, [0]), (BaseTypeByte.uint16z, [0, 0]),
            (BaseTypeByte.uint32z, [0, 0, 0, 0]), (BaseTypeByte.byte, [0xFF, 0xFF]),
            (BaseTypeByte.sint64, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
            (BaseTypeByte.uint64, [UInt8](repeating: 0xFF, count: 8)), (BaseTypeByte.uint64z, [UInt8](repeating: 0, count: 8)),
        ]
        builder.define(local: 0, global: 0xFF00, types.enumerated().map { (UInt8($0.offset), UInt8($0.element.1.count), $0.element.0) })
        builder.data(local: 0, types.flatMap(\.1))
        // The same types one above or below their invalid values, and arrays.
        let valid: [(UInt8, [UInt8], FITValue)] = [
            (BaseTypeByte.enumeration, [0xFE], .unsigned(254)), (BaseTypeByte.sint8, [0x80], .signed(-128)),
            (BaseTypeByte.sint16, le16(0x8000), .signed(-32_768)), (BaseTypeByte.uint16z, le16(1), .unsigned(1)),
            (BaseTypeByte.string, Array("ab\0c".utf8), .string("ab")), (BaseTypeByte.string, Array("abc".utf8), .string("abc")),
            (BaseTypeByte.float32, le32(Float(1.5).bitPattern), .float(1.5)), (BaseTypeByte.byte, [0xFF, 0x00], .bytes([0xFF, 0])),
            (BaseTypeByte.uint16, le16(5) + le16(0xFFFF) + le16(7), .array([.unsigned(5), nil, .unsigned(7)])),
            (BaseTypeByte.sint64, le32(0xFFFF_FFFE) + le32(0xFFFF_FFFF), .signed(-2)),
        ]
        builder.define(local: 1, global: 0xFF01, valid.enumerated().map { (UInt8($0.offset), UInt8($0.element.1.count), $0.element.0) })
        builder.data(local: 1, valid.flatMap(\.1))
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.isEmpty)
        #expect(decoding.messages.count == 2)
        #expect(decoding.messages.first?.fields == [])
        #expect(decoding.messages.last?.fields.map(\.value) == valid.map(\.2))
    }

    @Test("a float that is NaN but not the invalid pattern is absent too (no number; NaN would make equal decodings differ), and infinities stay")
    func notANumber() {
        var builder = FITBuilder()
        // A quiet NaN with a payload, a negative NaN, a float64 NaN, then an infinity and a number.
        let fields: [(UInt8, [UInt8])] = [
            (BaseTypeByte.float32, le32(0x7FC0_1234)), (BaseTypeByte.float32, le32(0xFFC0_0000)),
            (BaseTypeByte.float64, le32(0x0000_0001) + le32(0x7FF8_0000)),
            (BaseTypeByte.float32, le32(Float.infinity.bitPattern)), (BaseTypeByte.float32, le32(Float(2.5).bitPattern)),
        ]
        builder.define(local: 0, global: 0xFF02, fields.enumerated().map { (UInt8($0.offset), UInt8($0.element.1.count), $0.element.0) })
        builder.data(local: 0, fields.flatMap(\.1))
        builder.data(local: 0, fields.flatMap(\.1))
        let bytes = builder.file()
        let decoding = FITDecoder().decode(bytes)
        #expect(decoding.problems.isEmpty)
        #expect(decoding.messages.first?.fields.map(\.number) == [3, 4])
        #expect(decoding.messages.first?.fields.map(\.value) == [.float(.infinity), .float(2.5)])
        // The same bytes decode to equal messages (the fuzz harness's check that found it).
        #expect(FITDecoder().decode(bytes).messages == decoding.messages)
    }

    @Test("chained files: each with its own definitions, CRCs and file index")
    func chainedFiles() {
        var first = FITBuilder()
        Self.fileID(&first)
        first.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (3, 1, BaseTypeByte.uint8)])
        first.data(local: 1, le32(Self.start) + [120])
        var second = FITBuilder()
        second.define(local: 3, global: 132, [(253, 4, BaseTypeByte.uint32), (6, 2, BaseTypeByte.uint8)])
        second.data(local: 3, le32(Self.start + 10) + [121, 122])
        var third = FITBuilder()
        third.data(local: 1, le32(Self.start + 20) + [123])  // local 1 was defined in the first file only
        let firstFile = first.file(), secondFile = second.file(headerSize: 12)
        let decoding = FITDecoder().decode(firstFile + secondFile + third.file())
        #expect(decoding.files.map(\.offset) == [0, firstFile.count, firstFile.count + secondFile.count])
        #expect(decoding.files.map(\.fileCRCValid) == [true, true, true])
        #expect(decoding.files.map(\.headerCRCValid) == [true, nil, true])
        #expect(decoding.messages.map(\.fileIndex) == [0, 0, 1])
        #expect(decoding.messages.map(\.globalNumber) == [0, 20, 132])
        #expect(decoding.messages.last?.field(6) == .array([.unsigned(121), .unsigned(122)]))
        #expect(decoding.messages.last?.timestamp == Self.start + 10)
        #expect(decoding.problems.map(\.kind) == [.undefinedLocalMessage])
        #expect(decoding.problems.first?.offset == firstFile.count + secondFile.count + 14)
    }

    @Test("bytes after the last file that are no FIT file are reported, the files before kept")
    func trailingBytes() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        let file = builder.file()
        let decoding = FITDecoder().decode(file + Array("garbage after the file".utf8))
        #expect(decoding.messages.count == 1)
        #expect(decoding.problems == [FITProblem(.trailingBytes, at: file.count, decoding.problems.first?.message ?? "", fatal: false)])
    }

    @Test("header CRC: a wrong one is reported and the file decoded; 0 means not computed")
    func headerCRC() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        let wrong = FITDecoder().decode(builder.file(headerCRC: 0x1234))
        #expect(wrong.files.first?.headerCRCValid == false)
        #expect(wrong.problems.map(\.kind) == [.headerCRC])
        #expect(wrong.problems.first?.offset == 12)
        #expect(wrong.problems.first?.message.contains("0x1234") == true)
        #expect(wrong.messages.count == 1)
        let none = FITDecoder().decode(builder.file(headerCRC: 0))
        #expect(none.files.first?.headerCRCValid == nil)
        #expect(none.problems.isEmpty)
    }

    @Test("file CRC: a wrong one is reported at its offset, the messages kept")
    func fileCRC() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        var file = builder.file()
        file[file.count - 1] ^= 0x01
        let decoding = FITDecoder().decode(file)
        #expect(decoding.files.first?.fileCRCValid == false)
        #expect(decoding.problems.map(\.kind) == [.fileCRC])
        #expect(decoding.problems.first?.offset == file.count - 2)
        #expect(decoding.messages.count == 1)
    }

    @Test("a field whose size is no multiple of its base type's: read as bytes, reported at its definition")
    func fieldSize() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        let definitionOffset = 14 + builder.records.count
        builder.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (6, 3, BaseTypeByte.uint16), (3, 1, BaseTypeByte.uint8)])
        builder.data(local: 1, le32(Self.start) + [1, 2, 3, 99])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.problems.map(\.kind) == [.fieldSize])
        #expect(decoding.problems.first?.offset == definitionOffset + 6 + 3)  // the second field definition
        #expect(decoding.problems.first?.message.contains("size 3 is not a multiple of uint16's 2 bytes") == true)
        let record = decoding.messages(FITProfile.Message.record).first
        #expect(record?.field(6) == .bytes([1, 2, 3]))
        #expect(record?.value(FITProfile.Record.speed) == nil)
        #expect(record?.value(FITProfile.Record.heartRate) == 99)
    }

    @Test("an architecture other than 0 or 1 ends the file at that byte")
    func architecture() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        let definitionOffset = 14 + builder.records.count
        builder.define(local: 1, global: 20, [(3, 1, BaseTypeByte.uint8)])
        builder.records[definitionOffset - 14 + 2] = 7
        builder.data(local: 1, [99])
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.messages.count == 1)
        #expect(decoding.problems.first == FITProblem(.architecture, at: definitionOffset + 2, decoding.problems.first?.message ?? "", fatal: true))
    }

    @Test("a timestamp far after the file's creation is refused at its offset; the message stays")
    func timestampAhead() {
        var builder = FITBuilder()
        Self.fileID(&builder)
        builder.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (3, 1, BaseTypeByte.uint8)])
        builder.data(local: 1, le32(Self.start + 60) + [100])
        let offset = 14 + builder.records.count
        let ahead = Self.start + 64 * 365 * 86_400
        builder.data(local: 1, le32(ahead) + [101])
        builder.data(local: 1, le32(Self.start + 61) + [102])
        let decoding = FITDecoder().decode(builder.file())
        let records = decoding.messages(FITProfile.Message.record)
        #expect(records.map(\.timestamp) == [Self.start + 60, nil, Self.start + 61])
        #expect(records[1].field(253) == .unsigned(UInt64(ahead)))
        #expect(decoding.problems.map(\.kind) == [.timestampOutOfRange])
        #expect(decoding.problems.first?.offset == offset)
        #expect(decoding.problems.first?.isFatal == false)
    }

    @Test("not FIT: empty bytes, text, a header without .FIT")
    func notFIT() {
        for bytes in [[], Array("<?xml version=\"1.0\"?><gpx/>".utf8), [14, 0x20] + [UInt8](repeating: 0, count: 14)] as [[UInt8]] {
            let decoding = FITDecoder().decode(bytes)
            #expect(decoding.messages.isEmpty)
            #expect(decoding.problems.map(\.kind) == [.notFIT])
            #expect(decoding.problems.first?.offset == 0)
            #expect(!decoding.isWhole)
        }
    }

    @Test("the CRC is CRC-16/ARC: its check value, and the builder's bitwise CRC")
    func crc() {
        #expect(FITCRC.checksum(Array("123456789".utf8)) == 0xBB3D)
        var generator = SeededGenerator(state: 39)
        let bytes = (0..<1_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(FITCRC.checksum(bytes) == FITBuilder.crc(bytes))
    }
}
