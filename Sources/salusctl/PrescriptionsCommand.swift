import ArgumentParser
import Foundation
import SalusKit
import SalusModel
import SalusAdmin

/// `salusctl prescriptions`: the owner's vision prescriptions, listed or shown one at a time
/// with their lenses and attachments.
struct Prescriptions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List vision prescriptions or show one with its lenses and attachments.",
        subcommands: [List.self, Show.self],
        defaultSubcommand: List.self)

    /// `salusctl prescriptions list`.
    struct List: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List vision prescriptions, oldest first.",
            discussion: """
                Examples:
                  salusctl prescriptions list --valid-today
                  salusctl prescriptions list --type contacts --json
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: ArgumentHelp("Only glasses or only contacts.", valueName: "glasses|contacts"))
        var type: String?

        @Option(name: .long, help: ArgumentHelp("Only prescriptions in force on this date.", valueName: "date"))
        var validOn: String?

        @Flag(name: .long, help: "Only prescriptions in force now.")
        var validToday = false

        @Flag(name: .long, help: "Print a JSON array instead of a table.")
        var json = false

        func run(admin: AdminClient) async throws {
            var predicates: [SamplePredicate] = []
            if let type {
                guard let kind = PrescriptionText.type(named: type) else {
                    throw ValidationError("--type: \"\(type)\" is not a prescription type; expected glasses or contacts")
                }
                predicates.append(.prescription(.prescriptionType(kind)))
            }
            if validToday { predicates.append(.prescription(.validAt(Date()))) }
            if let validOn {
                predicates.append(.prescription(.validAt(try DateArgument.parse(validOn, flag: "--valid-on", endOfDay: false))))
            }
            let prescriptions = try await PrescriptionText.query(
                admin, predicate: predicates.isEmpty ? nil : .and(predicates))
            if json {
                print(try PrescriptionText.json(prescriptions.map { PrescriptionText.jsonObject($0, attachments: nil) }))
                return
            }
            guard !prescriptions.isEmpty else {
                print("No vision prescriptions.")
                return
            }
            for sample in prescriptions {
                guard case .visionPrescription(let prescription) = sample.value else { continue }
                let expiry = prescription.expirationDate.map { PrescriptionText.day($0) } ?? "no expiry"
                print(
                    "\(sample.uuid.uuidString.lowercased())  \(prescription.prescriptionType)  issued "
                        + "\(PrescriptionText.day(prescription.dateIssued))  \(expiry)  \(sample.sourceRevision.appID)"
                        + (prescription.brand.map { "  \($0)" } ?? ""))
            }
        }
    }

    /// `salusctl prescriptions show UUID`.
    struct Show: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one vision prescription: both lenses and the attachments.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The prescription's UUID.", valueName: "uuid"))
        var uuid: String

        @Flag(name: .long, help: "Print JSON instead of text.")
        var json = false

        func run(admin: AdminClient) async throws {
            guard let uuid = UUID(uuidString: uuid) else {
                throw ValidationError("uuid: \"\(self.uuid)\" is not a UUID")
            }
            guard let sample = try await PrescriptionText.query(admin, predicate: .uuids([uuid])).first,
                case .visionPrescription(let prescription) = sample.value
            else {
                throw CommandFailure("no vision prescription has the UUID \(uuid.uuidString.lowercased())")
            }
            let attachments: [Attachment]
            do {
                attachments = try await AttachmentStore(healthStore: admin.store).attachments(for: uuid)
            } catch {
                throw CommandFailure(error.message)
            }
            if json {
                print(try PrescriptionText.json(PrescriptionText.jsonObject(sample, attachments: attachments)))
                return
            }
            print("\(prescription.prescriptionType) prescription \(uuid.uuidString.lowercased())")
            print("  issued   \(PrescriptionText.day(prescription.dateIssued))")
            print("  expires  \(prescription.expirationDate.map { PrescriptionText.day($0) } ?? "never")")
            if let brand = prescription.brand { print("  brand    \(brand)") }
            print("  source   \(sample.sourceRevision.appID)")
            for (eye, lens) in [("right", prescription.rightEye), ("left", prescription.leftEye)] {
                guard let lens else { continue }
                print("  \(eye) eye  " + PrescriptionText.lensText(lens))
            }
            for attachment in attachments {
                print("  attachment \(attachment.uuid.uuidString.lowercased())  \(attachment.name)  \(attachment.contentType)  \(attachment.size) bytes")
            }
        }
    }
}

/// `salusctl attach UUID FILE`: attaches a file to an object, streamed in chunks.
struct Attach: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Attach a file (JPEG, PNG, HEIC, TIFF or PDF) to an object such as a vision prescription.",
        discussion: "The daemon decides the content type from the file's bytes, not its name.")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The object's UUID.", valueName: "uuid"))
    var uuid: String

    @Argument(help: ArgumentHelp("The file to attach.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("The name to show (default: the file's name).", valueName: "name"))
    var name: String?

    func run(admin: AdminClient) async throws {
        guard let object = UUID(uuidString: uuid) else {
            throw ValidationError("uuid: \"\(uuid)\" is not a UUID")
        }
        let url = URL(fileURLWithPath: file)
        do {
            let attachment = try await AttachmentStore(healthStore: admin.store)
                .addAttachment(to: object, name: name, url: url)
            print(
                "attached \(attachment.name) (\(attachment.contentType), \(attachment.size) bytes) as "
                    + attachment.uuid.uuidString.lowercased())
        } catch {
            throw CommandFailure(error.message)
        }
    }
}

/// How prescriptions are queried and printed.
enum PrescriptionText {
    static func type(named name: String) -> VisionPrescription.PrescriptionType? {
        switch name.lowercased() {
        case "glasses", "1": .glasses
        case "contacts", "2": .contacts
        default: nil
        }
    }

    static func query(_ admin: AdminClient, predicate: SamplePredicate?) async throws -> [Sample] {
        let query = SampleQueryDescriptor(
            type: .visionPrescription, predicate: predicate, sortDescriptors: [.startDate()], limit: nil)
        var samples: [Sample] = []
        do {
            for try await sample in query.samples(for: admin.store) { samples.append(sample) }
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
        return samples
    }

    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }

    static func lensText(_ lens: LensSpecification) -> String {
        var parts: [String] = []
        let units = ["sphere": "D", "cylinder": "D", "axis": "°", "addPower": "D"]
        for (name, value) in lens.numericFields {
            guard let value else { continue }
            parts.append("\(name) \(value)\(units[name].map { $0 == "°" ? $0 : " \($0)" } ?? " mm")")
        }
        if let prism = lens.prism { parts.append("prism \(prism.amount) Δ at \(prism.angle)°") }
        return parts.joined(separator: ", ")
    }

    static func jsonObject(_ sample: Sample, attachments: [Attachment]?) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": sample.uuid.uuidString.lowercased(), "sourceAppID": sample.sourceRevision.appID,
        ]
        if case .visionPrescription(let prescription) = sample.value {
            object["prescriptionType"] = "\(prescription.prescriptionType)"
            object["dateIssued"] = prescription.dateIssued.formatted(.iso8601)
            if let expiration = prescription.expirationDate { object["expirationDate"] = expiration.formatted(.iso8601) }
            if let brand = prescription.brand { object["brand"] = brand }
            for (eye, lens) in [("rightEye", prescription.rightEye), ("leftEye", prescription.leftEye)] {
                guard let lens else { continue }
                var fields: [String: Any] = [:]
                for (name, value) in lens.numericFields { if let value { fields[name] = value } }
                if let prism = lens.prism {
                    fields["prism"] = [
                        "amount": prism.amount, "angle": prism.angle, "verticalAmount": prism.verticalAmount,
                        "verticalBase": prism.verticalBase, "horizontalAmount": prism.horizontalAmount,
                        "horizontalBase": prism.horizontalBase, "eye": prism.eye,
                    ]
                }
                object[eye] = fields
            }
        }
        if let attachments {
            object["attachments"] = attachments.map {
                [
                    "uuid": $0.uuid.uuidString.lowercased(), "name": $0.name, "contentType": $0.contentType,
                    "size": $0.size, "creationDate": $0.creationDate.formatted(.iso8601),
                ] as [String: Any]
            }
        }
        return object
    }

    static func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
    }
}
