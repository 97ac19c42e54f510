import ArgumentParser
import Foundation
import SalusAdmin
import SalusProto
import SalusRPC
import SalusWire

/// `salusctl documents`: the person's clinical documents (HL7 CDA): add one received from a
/// clinic, list them, show one, and share one with an app.
struct Documents: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, list and show clinical documents (HL7 CDA), and share them with apps.",
        discussion: """
            The daemon checks each document (well-formed XML whose root is ClinicalDocument in the \
            urn:hl7-org:v3 namespace, with a title, patient, author, custodian and effective time) \
            and refuses it with the reason otherwise. Apps read documents per object: --grant APP \
            lets one registered app read this document (salusctl apps withdraw takes it back).
            """,
        subcommands: [Add.self, List.self, Show.self],
        defaultSubcommand: List.self
    )

    /// HealthKit's CDA document type.
    static let cda = "HKDocumentTypeIdentifierCDA"

    struct Add: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Add a CDA document the person received from a clinic.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The CDA document (XML).", valueName: "file")) var file: String
        @Option(name: .long, help: ArgumentHelp("Let this app read the document (repeat for several).", valueName: "app-id"))
        var grant: [String] = []
        @Flag(name: .long, help: "Print the saved document as JSON.") var json = false

        func run(client: RPCClient) async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("\(file): cannot be read (\(error.localizedDescription))")
            }
            // Unknown apps are refused before anything is saved.
            try await ConnectionOptions.owner(client) { admin in
                for app in grant { _ = try await admin.app(app) }
            }
            var sample = Salus_V1_Sample()
            sample.type = Documents.cda
            // The daemon dates the document by its effective time.
            let now = WireDate.microseconds(Date())
            sample.startDate = now
            sample.endDate = now
            sample.document.contentType = "application/xml"
            sample.document.data = data
            var request = Salus_V1_SaveRequest()
            request.samples = [sample]
            let response: Salus_V1_SaveResponse
            do {
                response = try await client.unary(SalusMethods.Store.save, request: request)
            } catch let error as RPCError {
                throw CommandFailure("\(file): \(error.detail.map { "\($0.field): \($0.value); expected \($0.expected)" } ?? error.message)")
            }
            guard let uuid = response.results.first?.uuid else { throw CommandFailure("\(file): the daemon saved nothing") }
            try await Documents.grant(grant, uuid: uuid, client: client)
            let saved = try await Documents.find(uuid, client: client, includeData: false)
            if json {
                print(try saved.jsonString(options: jsonOptions))
                return
            }
            print("added \(Documents.uuidText(uuid)): \(saved.document.title) (patient \(saved.document.patientName))")
            for app in grant { print("  \(app) may read it") }
        }
    }

    struct List: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "List the documents, oldest first, without their XML.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(name: .long, help: "Print a JSON array instead of a table.") var json = false

        func run(client: RPCClient) async throws {
            let documents = try await Documents.query(client: client, uuid: nil, includeData: false)
            if json {
                let objects = try documents.map { try JSONSerialization.jsonObject(with: Data($0.jsonString(options: jsonOptions).utf8)) }
                let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            guard !documents.isEmpty else {
                print("no documents (salusctl documents add FILE)")
                return
            }
            var rows = [["UUID", "EFFECTIVE", "TITLE", "PATIENT", "AUTHOR", "CUSTODIAN", "SOURCE"]]
            for sample in documents {
                rows.append([
                    Documents.uuidText(sample.uuid), Documents.dateText(sample.document.effectiveTime), sample.document.title,
                    sample.document.patientName, sample.document.authorName, sample.document.custodianName,
                    sample.sourceRevision.appID,
                ])
            }
            print(Table.render(rows))
        }
    }

    struct Show: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Show one document's fields, or its XML with --xml.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The document's UUID.", valueName: "uuid")) var uuid: String
        @Option(name: .long, help: ArgumentHelp("Let this app read the document (repeat for several).", valueName: "app-id"))
        var grant: [String] = []
        @Flag(name: .long, help: "Print the document's XML as it was saved.") var xml = false
        @Flag(name: .long, help: "Print JSON (the XML included, base64).") var json = false

        func validate() throws {
            guard UUID(uuidString: uuid) != nil else {
                throw ValidationError("uuid: \(uuid) is not a UUID; expected one from salusctl documents list")
            }
        }

        func run(client: RPCClient) async throws {
            let bytes = WireUUID.bytes(UUID(uuidString: uuid)!)
            let sample = try await Documents.find(bytes, client: client, includeData: xml || json)
            try await Documents.grant(grant, uuid: bytes, client: client)
            if xml {
                FileHandle.standardOutput.write(sample.document.data)
                return
            }
            if json {
                print(try sample.jsonString(options: jsonOptions))
                return
            }
            let document = sample.document
            print("\(Documents.uuidText(sample.uuid)): \(document.title)")
            print("  patient:    \(document.patientName)")
            print("  author:     \(document.authorName)")
            print("  custodian:  \(document.custodianName)")
            print("  effective:  \(Documents.dateText(document.effectiveTime))")
            print("  added by:   \(sample.sourceRevision.appID)")
            for app in grant { print("  \(app) may read it") }
        }
    }

    /// The CDA documents, or the one with `uuid`; bytes only with `includeData`.
    static func query(client: RPCClient, uuid: Data?, includeData: Bool) async throws -> [Salus_V1_Sample] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = cda
        request.includeData = includeData
        request.sort = [Salus_V1_SortDescriptor.with { $0.key = .startDate }]
        if let uuid { request.predicate.uuids.uuids = [uuid] }
        var samples: [Salus_V1_Sample] = []
        do {
            for try await batch in try client.serverStreaming(SalusMethods.Store.querySamples, request: request) {
                samples += batch.samples
            }
        } catch let error as RPCError {
            throw CommandFailure(error.message)
        }
        return samples
    }

    /// The document with `uuid`, or a failure saying there is none.
    static func find(_ uuid: Data, client: RPCClient, includeData: Bool) async throws -> Salus_V1_Sample {
        guard let sample = try await query(client: client, uuid: uuid, includeData: includeData).first else {
            throw CommandFailure("uuid: \(uuidText(uuid)) is not a document; expected one from salusctl documents list")
        }
        return sample
    }

    /// Lets each app read the document with `uuid`.
    static func grant(_ apps: [String], uuid: Data, client: RPCClient) async throws {
        guard let uuid = WireUUID.uuid(uuid) else { throw CommandFailure("uuid: \(uuidText(uuid)) is not a UUID") }
        try await ConnectionOptions.owner(client) { admin in
            for app in apps { try await admin.grantObjects([uuid], type: cda, to: app) }
        }
    }

    static func uuidText(_ bytes: Data) -> String {
        WireUUID.uuid(bytes)?.uuidString.lowercased() ?? bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func dateText(_ microseconds: Int64) -> String {
        WireDate.date(microseconds).formatted(Date.ISO8601FormatStyle(timeZone: .current))
    }
}
