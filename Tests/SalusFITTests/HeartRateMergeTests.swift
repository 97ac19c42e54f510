import SalusFIT
import Testing

/// `hr` messages (132), built byte by byte from the protocol's description: an anchor with its
/// time, fraction and strap clock, then `event_timestamp_12` beats rolling over the 4-second wrap;
/// and their merge into records. The real chained files are compared with the SDK in OracleTests.
@Suite("FIT: heart rates of hr messages")
struct HeartRateMergeTests {
    static let start = SyntheticFileTests.start

    /// An anchor at start + 0.5 s whose strap clock is 4090/1024 s, then 8 beats 512/1024 s
    /// apart (the 12-bit clock wraps after the first), with rates 100…107 (104 invalid).
    static func hrFile(records: [(offset: UInt32, heartRate: UInt8?)]) -> [UInt8] {
        var builder = FITBuilder()
        SyntheticFileTests.fileID(&builder)
        builder.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (3, 1, BaseTypeByte.uint8)])
        for record in records { builder.data(local: 1, le32(start + record.offset) + [record.heartRate ?? 0xFF]) }
        builder.define(local: 2, global: 132, [
            (253, 4, BaseTypeByte.uint32), (0, 2, BaseTypeByte.uint16), (9, 4, BaseTypeByte.uint32), (6, 1, BaseTypeByte.uint8),
        ])
        builder.data(local: 2, le32(start) + le16(16384) + le32(4090) + [99])
        builder.define(local: 3, global: 132, [(6, 8, BaseTypeByte.uint8), (10, 12, BaseTypeByte.byte)])
        let clock = (1...8).map { (4090 + 512 * $0) & 0xFFF }
        var packed: [UInt8] = []
        for pair in stride(from: 0, to: 8, by: 2) {
            let (a, b) = (clock[pair], clock[pair + 1])
            packed += [UInt8(a & 0xFF), UInt8(a >> 8 | (b & 0x0F) << 4), UInt8(b >> 4)]
        }
        builder.data(local: 3, [100, 101, 102, 103, 0xFF, 105, 106, 107] + packed)
        return builder.file()
    }

    @Test("the beats' times: the anchor's time and fraction plus the strap clock since its event_timestamp, over the 12-bit wrap")
    func events() {
        let decoding = FITDecoder().decode(Self.hrFile(records: []))
        #expect(decoding.problems.isEmpty)
        let events = FITHeartRates.events(decoding.messages)
        let anchor = Double(Self.start) + 0.5
        #expect(events.map(\.bpm) == [99, 100, 101, 102, 103, 105, 106, 107])
        #expect(events.map(\.time) == [0, 1, 2, 3, 4, 6, 7, 8].map { anchor + Double($0) * 0.5 })
    }

    @Test("records without a heart rate get the mean of the beats from the record before (at least 1.5 s back), their own kept")
    func merge() {
        // Beats at +0.5 (99), 1 (100), 1.5 (101), 2 (102), 2.5 (103), 3.5 (105), 4 (106), 4.5 (107).
        let decoding = FITDecoder().decode(Self.hrFile(records: [(1, nil), (2, 150), (3, nil), (5, nil), (9, nil)]))
        let records = FITHeartRates.merged(decoding.messages).filter { $0.globalNumber == FITProfile.Message.record }
        // +1: beats in [−0.5, 1] → 99, 100 → 99.5 → 100 (half up); +2: its own; +3: [1.5, 3] → 101…103;
        // +5: [3, 5] → 105…107; +9: after the last beat, none.
        #expect(records.map { $0.value(FITProfile.Record.heartRate) } == [100, 150, 102, 106, nil])
        // The decoder itself gives the records as the file holds them.
        #expect(decoding.messages(FITProfile.Message.record).map { $0.value(FITProfile.Record.heartRate) } == [nil, 150, nil, nil, nil])
    }

    @Test("a file without hr messages is unchanged")
    func noHR() {
        var builder = FITBuilder()
        SyntheticFileTests.fileID(&builder)
        builder.define(local: 1, global: 20, [(253, 4, BaseTypeByte.uint32), (5, 4, BaseTypeByte.uint32)])
        builder.data(local: 1, le32(Self.start) + le32(100))
        let decoding = FITDecoder().decode(builder.file())
        #expect(decoding.messages(FITProfile.Message.record).count == 1)
        #expect(FITHeartRates.events(decoding.messages).isEmpty)
        #expect(FITHeartRates.merged(decoding.messages) == decoding.messages)
    }
}
