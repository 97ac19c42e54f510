import Foundation
import SalusStore

/// The files salusctl writes the person's data to (a report page, a route's GPX), private to the
/// owner from their creation: `PrivateFiles`' rules. (Exports write theirs through SalusExport.)
enum PrivateOutput {
    /// `data` as the file `path` of mode 0600, replacing what is there.
    static func write(_ data: Data, to path: String) throws {
        try PrivateFiles.write(data, to: path, replacing: true)
    }
}
