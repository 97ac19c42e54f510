import Foundation
import SalusStore
import Testing
import ZIPFoundation

/// A zip entry whose deflate stream does not end inside the archive: ZIPFoundation alone reads an
/// empty chunk at the end of the file for ever (found by the restore fuzzing harness).
@Suite("Zip entries whose data never ends")
struct GuardedArchiveTests {
    /// One deflated entry named `name` whose data is a stored block declaring 65,535 bytes, of which
    /// the file holds a few (and then the central directory, which the block swallows).
    static func endlessEntry(named name: String) -> Data {
        let nameBytes = Array(name.utf8)
        // BFINAL 0, BTYPE 00 (stored), LEN 0xFFFF, NLEN 0x0000, then 5 bytes.
        let compressed: [UInt8] = [0x00, 0xFF, 0xFF, 0x00, 0x00] + Array("hello".utf8)
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
        var bytes: [UInt8] = []
        bytes += le32(0x0403_4B50) + le16(20) + le16(0) + le16(8) + le16(0) + le16(0x21)
        bytes += le32(0x1234_5678) + le32(compressed.count) + le32(65_535) + le16(nameBytes.count) + le16(0)
        bytes += nameBytes + compressed
        let directory = bytes.count
        bytes += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(8) + le16(0) + le16(0x21)
        bytes += le32(0x1234_5678) + le32(compressed.count) + le32(65_535) + le16(nameBytes.count)
        bytes += le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + nameBytes
        let directorySize = bytes.count - directory
        bytes += le32(0x0605_4B50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(directorySize) + le32(directory) + le16(0)
        return Data(bytes)
    }

    static func write(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("endless-\(UUID().uuidString).zip")
        try data.write(to: url)
        return url
    }

    @Test("an entry whose data does not end inside the archive is refused as damaged, after the stall limit, not read for ever")
    func endlessEntryRefused() throws {
        let url = try Self.write(Self.endlessEntry(named: "export.xml"))
        defer { try? FileManager.default.removeItem(at: url) }
        let guarded = try GuardedArchive(url: url, stallLimit: 0.5)
        let entry = try #require(guarded.archive["export.xml"])
        var received = 0
        defer { _ = received }
        let started = Date()
        let error = #expect(throws: GuardedArchive.Stalled.self) {
            try guarded.extract(entry) { received += $0.count }
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(error?.entry == "export.xml")
        #expect(error?.description.contains("does not end inside the archive") == true)
    }
}
