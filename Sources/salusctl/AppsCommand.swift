import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit

/// `salusctl apps`: the owner's registry of apps, their policies and grants.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register apps and manage what each may read and write.",
        subcommands: [
            Add.self, List.self, Show.self, Reset.self, Remove.self, Policy.self, Grant.self, Revoke.self, Withdraw.self,
            SyncAgent.self, Trust.self, DeleteData.self,
        ],
        defaultSubcommand: List.self
    )

    struct Add: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app (or update its name and usage texts).",
            discussion: "An app may ask to read only with a read usage text, and to write only with a write usage text.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id (reverse DNS).", valueName: "app-id")) var appID: String
        @Option(name: .long, help: "The name shown to you.") var name: String
        @Option(name: .long, help: ArgumentHelp("Why the app reads health data.", valueName: "text")) var readUsage: String = ""
        @Option(name: .long, help: ArgumentHelp("Why the app writes health data.", valueName: "text")) var writeUsage: String = ""

        func run(admin: AdminClient) async throws {
            let info = try await admin.addApp(appID, name: name, readUsage: readUsage, writeUsage: writeUsage)
            print("registered \(info.appID) (\(info.name))")
        }
    }

    struct List: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run(admin: AdminClient) async throws {
            let apps = try await admin.apps()
            if json {
                print(try AdminJSON.text(apps: apps))
                return
            }
            var rows = [["APP", "NAME", "POLICY", "READ", "SHARE", "OBJECTS", "PENDING"]]
            for app in apps {
                rows.append([
                    app.appID, app.name, ConsentCalls.policy(app.policy),
                    "\(app.grants.filter { $0.read == .granted }.count)", "\(app.grants.filter { $0.share == .granted }.count)",
                    "\(app.objects.count)", "\(app.pending.count)",
                ])
            }
            print(apps.isEmpty ? "no apps registered (salusctl apps add ID --name NAME)" : Table.render(rows))
        }
    }

    struct Show: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an app: grants per type, per-object grants, pending requests, and what it wrote.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run(admin: AdminClient) async throws {
            let app: AppInfo
            do {
                app = try await admin.app(appID)
            } catch let error as SalusError where error.code == .notFound {
                // Its samples outlive its registration: show them, or say it is unknown.
                let summary = try await admin.appData(appID)
                if json {
                    print(try AdminJSON.text(appData: summary))
                    return
                }
                print("\(appID): not registered (salusctl apps add registers it)")
                try await Apps.showData(admin, appID: appID)
                return
            }
            if json {
                print(try AdminJSON.text(app: app, wrote: try await admin.appData(appID)))
                return
            }
            Apps.show(app)
            try await Apps.showData(admin, appID: appID)
        }
    }

    static func show(_ app: AppInfo) {
        Swift.print("\(app.appID): \(app.name)")
        Swift.print("  read usage:  \(app.readUsage.isEmpty ? "(none: the app may not ask to read)" : app.readUsage)")
        Swift.print("  write usage: \(app.writeUsage.isEmpty ? "(none: the app may not ask to write)" : app.writeUsage)")
        Swift.print("  policy: \(ConsentCalls.policy(app.policy))")
        if !app.endpoint.isEmpty { Swift.print("  socket: \(app.endpoint)") }
        if app.isSyncAgent { Swift.print("  sync agent: yes (saves and deletes samples from your other stores)") }
        if app.acceptsWeakIdentity { Swift.print("  weak identity: accepted (a systemd scope naming it is the app)") }
        if app.grants.isEmpty {
            Swift.print("  grants: none (every type not determined)")
        } else {
            var rows = [["TYPE", "READ", "SHARE"]]
            for grant in app.grants {
                rows.append([grant.type, ConsentCalls.decision(grant.read), ConsentCalls.decision(grant.share)])
            }
            Swift.print(Table.render(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        for object in app.objects {
            Swift.print("  may read object \(object.uuid.uuidString) (\(object.type))")
        }
        for request in app.pending {
            Swift.print("  pending: " + ConsentCalls.describe(request).replacingOccurrences(of: "\n", with: "\n  "))
        }
    }

    struct SyncAgent: OwnerCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-agent",
            abstract: "Make an app this store's sync agent (or no longer, with --off).",
            discussion: """
                The sync agent (salus-sync) brings samples and deletions from your other stores: it saves \
                them with the UUIDs, sources and creation dates they have there, which no other app may do. \
                It still writes only the types you let it write (salusctl apps grant --share).
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Flag(name: .long, help: "The app is no longer the sync agent.") var off = false

        func run(admin: AdminClient) async throws {
            let info = try await admin.setSyncAgent(appID, !off)
            print(info.isSyncAgent ? "\(appID) is this store's sync agent" : "\(appID) is not the sync agent")
        }
    }

    struct Reset: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Return an app to \"not determined\" for every type and object.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String

        func run(admin: AdminClient) async throws {
            try await admin.resetApp(appID)
            print("\(appID): every permission is not determined again")
        }
    }

    struct Remove: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget an app; its samples stay, attributed to it, unless --delete-data deletes them first.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Flag(name: .long, help: "Delete what the app wrote first (as apps delete-data), then forget it.") var deleteData = false
        @Flag(name: .long, help: "With --delete-data: do not ask for confirmation.") var yes = false

        func run(admin: AdminClient) async throws {
            if deleteData {
                let wrote = try await admin.appData(appID)
                if wrote.total > 0 {
                    guard try await Apps.deleteData(admin, appID: appID, AppDataSelection(), dryRun: false, yes: yes) else {
                        print("\(appID) stays registered")
                        return
                    }
                } else {
                    print("\(appID) wrote nothing the store holds")
                }
                try await admin.removeApp(appID)
                print("removed \(appID)")
                return
            }
            try await admin.removeApp(appID)
            print("removed \(appID); its samples stay in the store (salusctl apps remove \(appID) --delete-data deletes them)")
        }
    }

    struct Policy: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "How the app's new requests are answered: ask | grant-all | deny-all | grant.",
            discussion: "`grant` grants the types listed with --read and --share and denies the rest. --after answers that long after the request arrives (500ms, 2s, 1m).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Argument(help: ArgumentHelp("ask, grant-all, deny-all or grant.", valueName: "policy")) var kind: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types granted for reading (with grant).", valueName: "type")) var read: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types granted for writing (with grant).", valueName: "type")) var share: [String] = []
        @Option(name: .long, help: ArgumentHelp("Answer this long after a request arrives.", valueName: "duration")) var after: String?

        func run(admin: AdminClient) async throws {
            var policy = ConsentPolicy(try ConsentCalls.policyKind(kind, field: "POLICY"))
            if policy.kind != .grantListed && !(read.isEmpty && share.isEmpty) {
                throw CommandFailure("--read/--share: only the grant policy takes type lists; '\(kind)' does not")
            }
            if policy.kind == .ask && after != nil {
                throw CommandFailure("--after: the ask policy waits for you; expected --after only with grant-all, deny-all or grant")
            }
            policy.read = try await admin.typeIdentifiers(for: read)
            policy.share = try await admin.typeIdentifiers(for: share)
            policy.afterMilliseconds = try after.map { try ConsentCalls.milliseconds($0, flag: "--after") } ?? 0
            let app = try await admin.setPolicy(policy, for: appID)
            print("\(app.appID): policy \(ConsentCalls.policy(app.policy))")
        }
    }

    /// Grants or revokes types directly.
    static func setGrants(_ connection: ConnectionOptions, appID: String, read: [String], share: [String], decision: ConsentDecision) async throws {
        guard !read.isEmpty || !share.isEmpty else {
            throw CommandFailure("--read/--share: no types given; expected at least one type")
        }
        try await connection.withAdmin { admin in
            var grants: [String: TypeGrant] = [:]
            for type in try await admin.typeIdentifiers(for: read) {
                grants[type, default: TypeGrant(type: type)].read = decision
            }
            for type in try await admin.typeIdentifiers(for: share) {
                grants[type, default: TypeGrant(type: type)].share = decision
            }
            Apps.show(try await admin.setGrants(grants.keys.sorted().map { grants[$0]! }, for: appID))
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow an app to read or write types, without a request.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to allow reading.", valueName: "type")) var read: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to allow writing.", valueName: "type")) var share: [String] = []

        func run() async throws {
            try await Apps.setGrants(connection, appID: appID, read: read, share: share, decision: .granted)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny an app reading or writing types; open queries stop delivering them at once.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to deny reading.", valueName: "type")) var read: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to deny writing.", valueName: "type")) var share: [String] = []

        func run() async throws {
            try await Apps.setGrants(connection, appID: appID, read: read, share: share, decision: .denied)
        }
    }

    struct Withdraw: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw an app's access to objects of a per-object type.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("The objects' UUIDs.", valueName: "uuid")) var objects: [String]

        func run(admin: AdminClient) async throws {
            let app = try await admin.withdrawObjects(try objects.map { try ConsentCalls.uuid($0, flag: "--objects") }, from: appID)
            print("\(app.appID) may read \(app.objects.count) objects now")
        }
    }
}
