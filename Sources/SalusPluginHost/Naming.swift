/// Naming rules for plugin ids, third-party identifiers and keys.
enum Naming {
    /// Reverse-DNS: at least two dot-separated labels; the first (a top-level domain) lowercase
    /// letters and digits starting with a letter, the others letters, digits, `-` and `_`
    /// starting with a letter or digit ("org.example.migraine.severity").
    static func isReverseDNS(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for (index, label) in labels.enumerated() {
            guard let first = label.unicodeScalars.first else { return false }
            if index == 0 {
                guard ("a"..."z").contains(first),
                    label.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) })
                else { return false }
            } else {
                guard isAlphanumeric(first),
                    label.unicodeScalars.allSatisfy({ isAlphanumeric($0) || $0 == "-" || $0 == "_" })
                else { return false }
            }
        }
        return true
    }

    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// A media type: "type/subtype", both non-empty, no spaces.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { isAlphanumeric($0) || "!#$&^_.+-".unicodeScalars.contains($0) }
        }
    }

    /// An area name: lowercase letters, digits and `-`, starting with a letter ("vitals",
    /// "lab", "state-of-mind"), so that it can be typed after `salusctl types --area`.
    static func isArea(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// HealthKit's namespace: identifiers and keys beginning with "HK".
    static func isHealthKitName(_ text: String) -> Bool { text.hasPrefix("HK") }
}
