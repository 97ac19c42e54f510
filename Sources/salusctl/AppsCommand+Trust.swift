import ArgumentParser
import SalusAdmin

extension Apps {
    /// `salusctl apps trust APP --weak-identity [--off]`: whether a weak identity is enough.
    struct Trust: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept a weak identity (a desktop's systemd scope) as an app (or no longer, with --off).",
            discussion: """
                A desktop starts a host app in a systemd scope named after it (app-gnome-org.example.App-1234.scope), \
                and Salus knows the app by it on the shared socket. That identity is weak: any program of yours can \
                make a scope of any name. Until you accept it for the app, a caller known only that way may ask, but \
                gets none of the app's permissions, and its requests can only be declined. Accept it only for an app \
                you start from the desktop and cannot start with salusctl launch or install as a Flatpak or Snap.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Flag(name: .customLong("weak-identity"), help: "Accept a systemd scope naming the app as the app (required: what is trusted).")
        var weakIdentity = false
        @Flag(name: .long, help: "No longer accept it.") var off = false

        func validate() throws {
            guard weakIdentity else {
                throw ValidationError("say what to trust: --weak-identity (a systemd scope naming the app)")
            }
        }

        func run(admin: AdminClient) async throws {
            let info = try await admin.setAcceptsWeakIdentity(appID, !off)
            print(info.acceptsWeakIdentity
                ? "\(appID): a weak identity (a systemd scope naming it) is accepted as the app"
                : "\(appID): a weak identity gets none of its permissions; its requests can only be declined")
        }
    }
}
