import Foundation
import SalusModel
import Testing

@testable import SalusStore

/// The backup manifest's SHA-256 against the test vectors of FIPS 180-4 (one block, an empty
/// message, a message whose padding needs a second block, and one fed in pieces).
@Suite("SHA-256")
struct SHA256DigestTests {
    static func digest(_ text: String) -> String {
        var digest = SHA256Digest()
        digest.update(Array(text.utf8))
        return digest.hexDigest()
    }

    @Test("the standard's vectors")
    func vectors() {
        #expect(Self.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("bytes fed in uneven pieces have the digest of the whole")
    func pieces() {
        let message = Array(String(repeating: "abcdefghij", count: 20).utf8)
        var digest = SHA256Digest()
        var index = 0
        for size in [3, 61, 1, 64, 70] {
            digest.update(message[index..<min(index + size, message.count)])
            index = min(index + size, message.count)
        }
        digest.update(message[index...])
        // The digest of "abcdefghij" × 20 by Python's hashlib.
        #expect(digest.hexDigest() == "5d21f71a6600f3754431bf20ce4c69e7ff23f66d3140b8a8346e5e26eab201dc")
    }

    @Test("a file read in pieces has the digest of its whole content")
    func fileInPieces() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: url)
        #expect(try SHA256Digest.file(url.path) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
