import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit

/// `salusctl consent`: the pending requests of apps, answered by the owner.
struct Consent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, answer and watch apps' authorization requests.",
        subcommands: [Pending.self, Answer.self, Watch.self],
        defaultSubcommand: Pending.self
    )

    struct Pending: OwnerCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending requests with the app's name, usage texts and types.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run(admin: AdminClient) async throws {
            let requests = try await admin.pendingRequests()
            if json {
                print(try AdminJSON.text(requests: requests))
                return
            }
            if requests.isEmpty { print("no pending requests") }
            for request in requests { print(ConsentCalls.describe(request)) }
        }
    }

    struct Answer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a request: what you grant; everything else it asks is denied.",
            discussion: "Example: salusctl consent answer r1 --grant-share sleepAnalysis --deny heartRate")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The request id (salusctl consent).", valueName: "request")) var requestID: String
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to allow reading.", valueName: "type")) var grantRead: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to allow writing.", valueName: "type")) var grantShare: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Types to deny (the default for every type not granted).", valueName: "type")) var deny: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Objects to allow reading (per-object requests).", valueName: "uuid")) var objects: [String] = []
        @Flag(name: .long, help: "Grant everything the request asks.") var all = false
        @Flag(name: .long, help: "Grant nothing.") var none = false

        func run() async throws {
            if all && none { throw CommandFailure("--all and --none: choose one") }
            if (all || none) && !(grantRead.isEmpty && grantShare.isEmpty && objects.isEmpty) {
                throw CommandFailure("--all/--none: not with --grant-read, --grant-share or --objects")
            }
            try await connection.withAdmin { admin in
                var request = ConsentAnswer(requestID: requestID)
                if all {
                    guard let asked = try await admin.pendingRequests().first(where: { $0.id == requestID }) else {
                        throw CommandFailure("REQUEST: no pending request \(requestID); expected one listed by salusctl consent")
                    }
                    request = .all(asked)
                } else if !none {
                    request.grantRead = try await admin.typeIdentifiers(for: grantRead)
                    request.grantShare = try await admin.typeIdentifiers(for: grantShare)
                    request.objects = try objects.map { try ConsentCalls.uuid($0, flag: "--objects") }
                    let denied = Set(try await admin.typeIdentifiers(for: deny))
                    if let both = denied.intersection(request.grantRead + request.grantShare).first {
                        throw CommandFailure("--deny: \(both) is also granted; expected each type either granted or denied")
                    }
                }
                let answered = try await admin.answer(request)
                print("answered \(answered.id) for \(answered.appID): read \(request.grantRead.isEmpty ? "none" : request.grantRead.joined(separator: ", ")); write \(request.grantShare.isEmpty ? "none" : request.grantShare.joined(separator: ", "))\(request.objects.isEmpty ? "" : "; \(request.objects.count) objects")")
            }
        }
    }

    struct Watch: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait for requests and ask you about each as it arrives.",
            discussion: "For each request: a = allow all, n = allow nothing, c = choose type by type (and object by object), s = skip (leave it pending). Without a terminal on stdin, requests are only printed.")
        @OptionGroup var connection: ConnectionOptions

        func run(admin: AdminClient) async throws {
            print("waiting for requests (Ctrl-C to stop)")
            var interactive = true
            for try await request in admin.watchRequests() {
                print("")
                print(ConsentCalls.describe(request))
                guard interactive else { continue }
                guard let answer = Self.ask(request) else {
                    interactive = false
                    print("(no terminal input: printing requests only)")
                    continue
                }
                guard let answer else {
                    print("left \(request.id) pending")
                    continue
                }
                do {
                    try await admin.answer(answer)
                    print("answered \(request.id)")
                } catch let error as SalusError {
                    print("could not answer \(request.id): \(error.message)")
                }
            }
        }

        /// nil: stdin ended; .some(nil): skipped.
        static func ask(_ request: ConsentRequest) -> ConsentAnswer?? {
            var answer = ConsentAnswer.nothing(request)
            while true {
                print("allow? [a]ll, [n]othing, [c]hoose, [s]kip: ", terminator: "")
                guard let line = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
                switch line {
                case "a", "all":
                    return .some(.all(request))
                case "n", "nothing", "none":
                    return .some(answer)
                case "s", "skip":
                    return .some(nil)
                case "c", "choose":
                    for type in request.read {
                        guard let yes = yesNo("  let it read \(type)?") else { return nil }
                        if yes { answer.grantRead.append(type) }
                    }
                    for type in request.share {
                        guard let yes = yesNo("  let it write \(type)?") else { return nil }
                        if yes { answer.grantShare.append(type) }
                    }
                    for object in request.objects {
                        guard let yes = yesNo("  let it read object \(object.uuid.uuidString) from \(object.source)?") else { return nil }
                        if yes { answer.objects.append(object.uuid) }
                    }
                    return .some(answer)
                default:
                    print("please type a, n, c or s")
                }
            }
        }

        static func yesNo(_ question: String) -> Bool? {
            while true {
                print("\(question) [y/n]: ", terminator: "")
                guard let line = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
                if line == "y" || line == "yes" { return true }
                if line == "n" || line == "no" { return false }
            }
        }
    }
}
