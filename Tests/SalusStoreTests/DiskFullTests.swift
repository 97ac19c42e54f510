#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusModel
import SalusStore
import Testing

/// A store on a small filesystem that fills up: the batch that does not fit fails whole with
/// `resourceExhausted` naming the disk, reads go on, and saves work again once space is freed.
/// Mounting a tmpfs needs root, as CI runs.
@Suite("A full disk")
struct DiskFullTests {
    @Test(
        "a batch that fills the disk fails with resourceExhausted naming it and stores nothing; reads go on; freeing space lets saves resume",
        .enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func fullDisk() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-disk-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #require(mount("tmpfs", folder, "tmpfs", 0, "size=3m") == 0, "mount: \(String(cString: strerror(errno)))")
        defer {
            umount2(folder, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(atPath: folder)
        }
        let store = try await SampleStore.open(
            path: folder + "/salus.sqlite", catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        // Leave about 600 KB free: a filler file takes the rest.
        let filler = folder + "/filler"
        let handle = try #require(FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: filler, contents: nil); return filler }()))
        var statistics = statvfs()
        statvfs(folder, &statistics)
        let free = Int(statistics.f_bavail) * Int(statistics.f_frsize)
        try handle.write(contentsOf: Data(count: max(0, free - 600_000)))
        try handle.close()

        func batch(_ first: Int) -> [Sample] {
            (first..<first + 1_000).map { Fixtures.quantity(Double($0 % 50), start: Double($0) * 60, metadata: ["org.example.n": .number(Double($0))]) }
        }
        var saved = 0
        var refusal: StoreError?
        while refusal == nil, saved < 100_000 {
            do {
                _ = try await store.save(batch(saved), source: Fixtures.app)
                saved += 1_000
            } catch let error as StoreError {
                refusal = error
            }
        }
        let error = try #require(refusal, "the disk never filled")
        #expect(error.code == .resourceExhausted)
        #expect(error.field == "disk" && error.value == folder, "\(error)")
        #expect(error.message.contains("full"), "\(error.message)")
        // Nothing of the refused batch; everything before it; reads go on.
        #expect(try await store.count(Fixtures.steps) == saved)

        try FileManager.default.removeItem(atPath: filler)
        _ = try await store.save(batch(saved), source: Fixtures.app)
        #expect(try await store.count(Fixtures.steps) == saved + 1_000)
        #expect(try await store.integrityCheck() == "ok")
        await store.close()
    }
}
