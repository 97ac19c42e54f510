/// What Salus takes from a Flatpak sandbox's `/.flatpak-info`: the app id, `[Application] name`,
/// as xdg-desktop-portal does. The one place that reads that file's text.
struct FlatpakInfo: Sendable, Equatable {
    /// The app id, valid by Flatpak's rules (``isValidFlatpakID(_:)``).
    var appID: String

    /// The largest `.flatpak-info` read (Flatpak's are a few hundred bytes).
    static let maximumSize = 64 * 1024

    /// Reads the file's bytes; the refusal says why they do not name an app.
    init(bytes: [UInt8]) throws(IdentityRefusal) {
        let file: KeyFile
        do {
            file = try KeyFile(bytes: bytes)
        } catch {
            throw IdentityRefusal("/.flatpak-info is not a key file: \(error.description)")
        }
        guard file.groups["Application"] != nil else {
            throw IdentityRefusal("/.flatpak-info has no [Application] group")
        }
        guard let name = file["Application", "name"], !name.isEmpty else {
            throw IdentityRefusal("/.flatpak-info has no app id ([Application] name is missing or empty)")
        }
        guard Self.isValidFlatpakID(name), AppRegistry.isValidAppID(name) else {
            throw IdentityRefusal("/.flatpak-info names \"\(name.prefix(300))\", not a valid app id (reverse DNS: at least three elements of letters, digits and '_', '-' only in the last, none starting with a digit, at most 255 characters)")
        }
        appID = name
    }

    /// Flatpak's rules for an app id (`flatpak_is_valid_name`): at least three non-empty
    /// elements separated by '.', each of ASCII letters, digits, '_' (and '-' in the last one
    /// only), none starting with a digit, 255 characters at most.
    static func isValidFlatpakID(_ id: String) -> Bool {
        guard id.utf8.count <= 255 else { return false }
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for (index, element) in elements.enumerated() {
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            let isLast = index == elements.count - 1
            for scalar in element.unicodeScalars {
                let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || (isLast && scalar == "-")
                guard allowed else { return false }
            }
        }
        return true
    }
}

/// Why a peer is not identified although it looked like a sandboxed app; logged, and told to
/// the caller with UNAUTHENTICATED.
struct IdentityRefusal: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
