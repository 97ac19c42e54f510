import Foundation
import SalusModel

extension SHA256Digest {
    /// The digest of the file at `path`, read in 1 MiB pieces.
    package static func file(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var digest = SHA256Digest()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { digest.update(data) }
        return digest.hexDigest()
    }
}
