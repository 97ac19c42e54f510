/// A host app started by the desktop, as its systemd unit names it in /proc/PID/cgroup:
/// `app[-<launcher>]-<app id>-<random>.scope` or `app[-<launcher>]-<app id>[@<random>].service`
/// under `app.slice` (systemd.io, "Desktop Environment Integration"), '-' inside the launcher
/// and the app id escaped as `\x2d`. The one place that reads that name.
///
/// A weak identity: any process of the owner can start a scope of any name
/// (`systemd-run --user --scope --unit=app-gnome-org.example.App-1.scope`), and every process an
/// app starts stays in its scope. Its decisions count only when the owner accepts a weak
/// identity for the app (docs/security.md).
struct SystemdScope: Sendable, Equatable {
    /// The launcher named in the unit (`gnome`, `flatpak`), if any.
    var launcher: String?
    /// The app id (`org.gnome.Calculator`), unescaped.
    var appID: String

    init(launcher: String?, appID: String) {
        self.launcher = launcher
        self.appID = appID
    }

    /// Reads the text of /proc/PID/cgroup; nil when the process is in no app unit.
    init?(cgroup text: String) {
        // cgroup v2's line (`0::/path`) names the unit; v1's name=systemd line the same path.
        let lines = text.split(separator: "\n")
        guard let path = lines.first(where: { $0.hasPrefix("0::") }).map({ $0.dropFirst(3) })
            ?? lines.first(where: { $0.contains(":name=systemd:") }).flatMap({ $0.split(separator: ":", maxSplits: 2).last })
        else { return nil }
        let components = path.split(separator: "/")
        guard let unit = components.last, components.dropLast().last == "app.slice" || components.dropLast().last?.hasPrefix("app-") == true,
              unit.hasPrefix("app-")
        else { return nil }
        var name = unit.dropFirst("app-".count)
        if name.hasSuffix(".scope") {
            name = name.dropLast(".scope".count)
            guard let dash = name.lastIndex(of: "-") else { return nil }
            name = name[..<dash]
        } else if name.hasSuffix(".service") {
            name = name.dropLast(".service".count)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
        } else {
            return nil
        }
        let parts = name.split(separator: "-", omittingEmptySubsequences: false).map { $0.replacingOccurrences(of: "\\x2d", with: "-") }
        switch parts.count {
        case 1: launcher = nil; appID = parts[0]
        case 2: launcher = parts[0]; appID = parts[1]
        default: return nil
        }
        guard !appID.isEmpty, launcher?.isEmpty != true else { return nil }
    }
}
