import ArgumentParser
import Foundation
import SalusProto
import SalusRPC

/// `salusctl apps`: the owner's registry of apps, their policies and grants.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register apps and manage what each may read and write.",
        subcommands: [
            Add.self, List.self, Show.self, Reset.self, Remove.self, Policy.self, Grant.self, Revoke.self, Withdraw.self,
            SyncAgent.self,
        ],
        defaultSubcommand: List.self
    )

    struct Add: AdminCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app (or update its name and usage texts).",
            discussion: "An app may ask to read only with a read usage text, and to write only with a write usage text.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id (reverse DNS).", valueName: "app-id")) var appID: String
        @Option(name: .long, help: "The name shown to you.") var name: String
        @Option(name: .long, help: ArgumentHelp("Why the app reads health data.", valueName: "text")) var readUsage: String = ""
        @Option(name: .long, help: ArgumentHelp("Why the app writes health data.", valueName: "text")) var writeUsage: String = ""

        func run(client: RPCClient) async throws {
            var request = Salus_V1_AddAppRequest()
            request.appID = appID
            request.name = name
            request.readUsage = readUsage
            request.writeUsage = writeUsage
            let info: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.addApp, request)
            print("registered \(info.appID) (\(info.name))")
        }
    }

    struct List: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run(client: RPCClient) async throws {
            let response: Salus_V1_ListAppsResponse = try await ConsentCalls.call(client, SalusMethods.Consent.listApps, Salus_V1_ListAppsRequest())
            if json {
                print(try response.jsonString(options: jsonOptions))
                return
            }
            var rows = [["APP", "NAME", "POLICY", "READ", "SHARE", "OBJECTS", "PENDING"]]
            for app in response.apps {
                rows.append([
                    app.appID, app.name, ConsentCalls.policy(app.policy),
                    "\(app.grants.filter { $0.read == .granted }.count)", "\(app.grants.filter { $0.share == .granted }.count)",
                    "\(app.objects.count)", "\(app.pending.count)",
                ])
            }
            print(response.apps.isEmpty ? "no apps registered (salusctl apps add ID --name NAME)" : Table.render(rows))
        }
    }

    struct Show: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Show an app: grants per type, per-object grants, pending requests.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run(client: RPCClient) async throws {
            var request = Salus_V1_AppRequest()
            request.appID = appID
            let app: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.showApp, request)
            if json {
                print(try app.jsonString(options: jsonOptions))
                return
            }
            Apps.show(app)
        }
    }

    static func show(_ app: Salus_V1_AppInfo) {
        Swift.print("\(app.appID): \(app.name)")
        Swift.print("  read usage:  \(app.readUsage.isEmpty ? "(none: the app may not ask to read)" : app.readUsage)")
        Swift.print("  write usage: \(app.writeUsage.isEmpty ? "(none: the app may not ask to write)" : app.writeUsage)")
        Swift.print("  policy: \(ConsentCalls.policy(app.policy))")
        if !app.endpoint.isEmpty { Swift.print("  socket: \(app.endpoint)") }
        if app.syncAgent { Swift.print("  sync agent: yes (saves and deletes samples from your other stores)") }
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
            Swift.print("  may read object \(ConsentCalls.uuidText(object.uuid)) (\(object.type))")
        }
        for request in app.pending {
            Swift.print("  pending: " + ConsentCalls.describe(request).replacingOccurrences(of: "\n", with: "\n  "))
        }
    }

    struct SyncAgent: AdminCommand {
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

        func run(client: RPCClient) async throws {
            var request = Salus_V1_SetSyncAgentRequest()
            request.appID = appID
            request.syncAgent = !off
            let info: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.setSyncAgent, request)
            print(info.syncAgent ? "\(appID) is this store's sync agent" : "\(appID) is not the sync agent")
        }
    }

    struct Reset: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Return an app to \"not determined\" for every type and object.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String

        func run(client: RPCClient) async throws {
            var request = Salus_V1_AppRequest()
            request.appID = appID
            let _: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.resetApp, request)
            print("\(appID): every permission is not determined again")
        }
    }

    struct Remove: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Forget an app; its samples stay, attributed to it.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String

        func run(client: RPCClient) async throws {
            var request = Salus_V1_AppRequest()
            request.appID = appID
            let _: Salus_V1_RemoveAppResponse = try await ConsentCalls.call(client, SalusMethods.Consent.removeApp, request)
            print("removed \(appID); its samples stay in the store")
        }
    }

    struct Policy: AdminCommand {
        static let configuration = CommandConfiguration(
            abstract: "How the app's new requests are answered: ask | grant-all | deny-all | grant.",
            discussion: "`grant` grants the types listed with --read and --share and denies the rest. --after answers that long after the request arrives (500ms, 2s, 1m).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Argument(help: ArgumentHelp("ask, grant-all, deny-all or grant.", valueName: "policy")) var kind: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types granted for reading (with grant).", valueName: "type")) var read: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types granted for writing (with grant).", valueName: "type")) var share: [String] = []
        @Option(name: .long, help: ArgumentHelp("Answer this long after a request arrives.", valueName: "duration")) var after: String?

        func run(client: RPCClient) async throws {
            var policy = Salus_V1_Policy()
            switch kind {
            case "ask": policy.kind = .ask
            case "grant-all": policy.kind = .grantAll
            case "deny-all": policy.kind = .denyAll
            case "grant": policy.kind = .grantListed
            default: throw CommandFailure("POLICY: '\(kind)' is not a policy; expected ask, grant-all, deny-all or grant")
            }
            if policy.kind != .grantListed && !(read.isEmpty && share.isEmpty) {
                throw CommandFailure("--read/--share: only the grant policy takes type lists; '\(kind)' does not")
            }
            if policy.kind == .ask && after != nil {
                throw CommandFailure("--after: the ask policy waits for you; expected --after only with grant-all, deny-all or grant")
            }
            policy.read = try await ConsentCalls.resolveTypes(read, client: client)
            policy.share = try await ConsentCalls.resolveTypes(share, client: client)
            policy.afterMs = try after.map { try ConsentCalls.milliseconds($0, flag: "--after") } ?? 0
            var request = Salus_V1_SetPolicyRequest()
            request.appID = appID
            request.policy = policy
            let app: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.setPolicy, request)
            print("\(app.appID): policy \(ConsentCalls.policy(app.policy))")
        }
    }

    /// Grants or revokes types directly.
    static func setGrants(_ connection: ConnectionOptions, appID: String, read: [String], share: [String], decision: Salus_V1_Decision) async throws {
        guard !read.isEmpty || !share.isEmpty else {
            throw CommandFailure("--read/--share: no types given; expected at least one type")
        }
        try await connection.withClient { client in
            var grants: [String: Salus_V1_TypeGrant] = [:]
            for type in try await ConsentCalls.resolveTypes(read, client: client) {
                grants[type, default: Salus_V1_TypeGrant.with { $0.type = type }].read = decision
            }
            for type in try await ConsentCalls.resolveTypes(share, client: client) {
                grants[type, default: Salus_V1_TypeGrant.with { $0.type = type }].share = decision
            }
            var request = Salus_V1_SetGrantsRequest()
            request.appID = appID
            request.grants = grants.keys.sorted().map { grants[$0]! }
            let app: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.setGrants, request)
            Apps.show(app)
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

    struct Withdraw: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw an app's access to objects of a per-object type.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The app id.", valueName: "app-id")) var appID: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("The objects' UUIDs.", valueName: "uuid")) var objects: [String]

        func run(client: RPCClient) async throws {
            var request = Salus_V1_WithdrawObjectsRequest()
            request.appID = appID
            request.uuids = try objects.map { try ConsentCalls.uuid($0, flag: "--objects") }
            let app: Salus_V1_AppInfo = try await ConsentCalls.call(client, SalusMethods.Consent.withdrawObjects, request)
            print("\(app.appID) may read \(app.objects.count) objects now")
        }
    }
}
