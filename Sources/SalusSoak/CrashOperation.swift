import Foundation

/// The operations salus-store-crashtest runs, numbered: what operation `n` changes, so that a
/// check of the database after a kill knows what each acknowledged number must have left.
///
/// Operation `n` is, by `n % 6`: 0 and 1 a save of `size` step samples; 2 a delete of the
/// samples of operation `n - 2`; 3 a sync-identifier replacement of `size` samples (identifiers
/// "sync-0"..., version `n`); 4 a workout finish (a builder saved, then finished by a save of a
/// workout and `size` step samples); 5 an attachment upload to the first sample of operation
/// `n - 4`. Every sample an operation saves carries the metadata "batch" = `n`.
package enum CrashOperation: String, CaseIterable, Sendable {
    case save
    case delete
    case syncReplace = "sync replace"
    case workoutFinish = "workout finish"
    case attachmentUpload = "attachment upload"

    /// The kind of operation `n`.
    package static func kind(of operation: Int) -> CrashOperation {
        switch operation % 6 {
        case 0, 1: .save
        case 2: .delete
        case 3: .syncReplace
        case 4: .workoutFinish
        default: .attachmentUpload
        }
    }

    /// The samples operation `n` saves, for a batch size of `size` (0 for deletes and uploads).
    package static func samplesSaved(by operation: Int, size: Int) -> Int {
        switch kind(of: operation) {
        case .save, .syncReplace: size
        case .workoutFinish: size + 1
        case .delete, .attachmentUpload: 0
        }
    }

    /// The id of the workout builder operation `n` saves and finishes.
    package static func builderID(_ operation: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llx", UInt64(operation)))!
    }

    /// Bytes in each uploaded attachment.
    package static let attachmentSize = 65_536

    /// Byte `index` of the attachment operation `n` uploads.
    package static func attachmentByte(_ operation: Int, _ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index &* 31 &+ operation &+ index >> 8)
    }

    /// The name operation `n` gives its attachment.
    package static func attachmentName(_ operation: Int) -> String { "batch-\(operation)" }
}
