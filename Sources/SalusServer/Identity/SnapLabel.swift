/// A Snap app as its AppArmor label names it (SO_PEERSEC, or /proc/PID/attr/current):
/// `snap.NAME.APP (enforce)`, snapd's profile name for app APP of snap NAME. The one place that
/// reads that label. Its app id is `snap.NAME` (``appID``), as xdg-desktop-portal names a snap:
/// the apps of one snap share its data, so they are one app to the owner.
struct SnapLabel: Sendable, Equatable {
    /// The snap's name (`spotify`): lowercase letters, digits and '-', starting with a letter.
    var snap: String
    /// The app of the snap (`spotify`): letters, digits and '-'.
    var app: String

    /// The app id the daemon knows it by: `snap.NAME` (two elements: never a Flatpak's id).
    var appID: String { "snap." + snap }

    /// Reads `label`; nil for any label that is not a snap app's (unconfined, a hook's
    /// `snap.NAME.hook.HOOK`, another profile, a complain-mode profile).
    init?(label: String) {
        var text = Substring(label)
        if text.hasSuffix("\n") { text = text.dropLast() }
        guard text.hasSuffix(" (enforce)") else { return nil }
        let parts = text.dropLast(" (enforce)".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "snap",
              let first = parts[1].unicodeScalars.first, ("a"..."z").contains(first),
              parts[1].count <= 40, parts[2].count <= 40, !parts[2].isEmpty,
              parts[1].unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }),
              parts[2].unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else { return nil }
        snap = String(parts[1])
        app = String(parts[2])
    }
}
