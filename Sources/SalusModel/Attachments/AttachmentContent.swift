/// What an attachment's content is, decided from its first bytes: the name a file carries and
/// the type a client declares are never trusted.
///
/// Recognised: JPEG, PNG, HEIC/HEIF, TIFF and PDF (accepted where a type allows them), and
/// GIF, MP4/QuickTime video, WebM/Matroska, AVI and WebP so that they can be refused by name
/// ("a GIF") rather than as unknown bytes. HealthKit stores still images and PDF only.
package enum AttachmentContent {
    /// How many leading bytes `mediaType(ofPrefix:)` needs at most.
    package static let sniffLength = 32

    /// The media type of content starting with `prefix` ("image/png", "application/pdf",
    /// "image/gif", "video/mp4"), or nil when the bytes are none of the recognised formats.
    package static func mediaType(ofPrefix prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix.prefix(sniffLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if ascii("%PDF-") { return "application/pdf" }
        if ascii("GIF87a") || ascii("GIF89a") { return "image/gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return "image/webp" }
        if ascii("RIFF") && ascii("AVI ", at: 8) { return "video/x-msvideo" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "video/webm" }
        if ascii("ftyp", at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            switch brand {
            case "heic", "heix", "heim", "heis": return "image/heic"
            case "mif1", "msf1", "heif": return brand == "msf1" ? "video/heif-sequence" : "image/heif"
            case "qt  ": return "video/quicktime"
            case "avif": return "image/avif"
            default: return "video/mp4"
            }
        }
        return nil
    }

    /// A name for people of a recognised media type ("a GIF", "a video", "a PDF").
    package static func describe(_ mediaType: String?) -> String {
        switch mediaType {
        case nil: "content in no recognised format"
        case "image/gif": "a GIF"
        case "image/jpeg": "a JPEG image"
        case "image/png": "a PNG image"
        case "image/heic", "image/heif": "a HEIC image"
        case "image/tiff": "a TIFF image"
        case "application/pdf": "a PDF"
        case let type? where type.hasPrefix("video/"): "a video"
        case let type?: "\(type) content"
        }
    }
}
