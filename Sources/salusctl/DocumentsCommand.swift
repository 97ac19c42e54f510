import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusModel

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

    struct Add: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Add a CDA document the person received from a clinic.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The CDA document (XML).", valueName: "file")) var file: String
        @Option(name: .long, help: ArgumentHelp("Let this app read the document (repeat for several).", valueName: "app-id"))
        var grant: [String] = []
        @Flag(name: .long, help: "Print the saved document as JSON.") var json = false

        func run(admin: AdminClient) async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("\(file): cannot be read (\(error.localizedDescription))")
            }
            // An unknown app is refused (notFound) before anything is saved; a refused document
            // names its field.
            let saved: Sample
            do {
                saved = try await admin.addDocument(data, readers: grant)
            } catch let error as SalusError where error.code != .notFound {
                throw CommandFailure("\(file): \(error.field.map { "\($0): \(error.value ?? ""); expected \(error.expected ?? "")" } ?? error.message)")
            }
            if json {
                print(try AdminJSON.text(sample: saved))
                return
            }
            let document = Documents.document(saved)
            print("added \(Documents.uuidText(saved.uuid)): \(document.title ?? "") (patient \(document.patientName ?? ""))")
            for app in grant { print("  \(app) may read it") }
        }
    }

    struct List: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "List the documents, oldest first, without their XML.")
        @OptionGroup var connection: ConnectionOptions
        @Flag(name: .long, help: "Print a JSON array instead of a table.") var json = false

        func run(admin: AdminClient) async throws {
            let documents = try await Documents.query { try await admin.documents() }
            if json {
                print(try AdminJSON.text(samples: documents))
                return
            }
            guard !documents.isEmpty else {
                print("no documents (salusctl documents add FILE)")
                return
            }
            var rows = [["UUID", "EFFECTIVE", "TITLE", "PATIENT", "AUTHOR", "CUSTODIAN", "SOURCE"]]
            for sample in documents {
                let document = Documents.document(sample)
                rows.append([
                    Documents.uuidText(sample.uuid), Documents.dateText(document.effectiveTime), document.title ?? "",
                    document.patientName ?? "", document.authorName ?? "", document.custodianName ?? "",
                    sample.sourceRevision.appID,
                ])
            }
            print(Table.render(rows))
        }
    }

    struct Show: OwnerCommand {
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

        func run(admin: AdminClient) async throws {
            let id = UUID(uuidString: uuid)!
            let sample = try await Documents.find(id, admin: admin, includeData: xml || json)
            try await admin.shareDocument(id, with: grant)
            let document = Documents.document(sample)
            if xml {
                FileHandle.standardOutput.write(document.data)
                return
            }
            if json {
                print(try AdminJSON.text(sample: sample))
                return
            }
            print("\(Documents.uuidText(sample.uuid)): \(document.title ?? "")")
            print("  patient:    \(document.patientName ?? "")")
            print("  author:     \(document.authorName ?? "")")
            print("  custodian:  \(document.custodianName ?? "")")
            print("  effective:  \(Documents.dateText(document.effectiveTime))")
            print("  added by:   \(sample.sourceRevision.appID)")
            for app in grant { print("  \(app) may read it") }
        }
    }

    /// What `call` returns; a refusal of the daemon becomes the command's failure with its message.
    static func query<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    /// The document with `uuid`, or a failure saying there is none.
    static func find(_ uuid: UUID, admin: AdminClient, includeData: Bool) async throws -> Sample {
        guard let sample = try await query({ try await admin.document(uuid, includeData: includeData) }) else {
            throw CommandFailure("uuid: \(uuidText(uuid)) is not a document; expected one from salusctl documents list")
        }
        return sample
    }

    /// The document a sample holds (an empty one for another kind, which a query of documents
    /// does not return).
    static func document(_ sample: Sample) -> ClinicalDocument {
        if case .document(let document) = sample.value { return document }
        return ClinicalDocument(contentType: "", data: Data())
    }

    static func uuidText(_ uuid: UUID) -> String {
        uuid.uuidString.lowercased()
    }

    static func dateText(_ date: Date?) -> String {
        (date ?? Date(timeIntervalSince1970: 0)).formatted(Date.ISO8601FormatStyle(timeZone: .current))
    }
}
