// VisionCard: an example app that keeps a person's glasses prescription with a scan of the
// paper it was written on, using SalusKit.
//
//   VisionCard --scan FILE [--socket PATH] [--sphere D] [--cylinder D] [--axis DEG]
//
// It asks to write vision prescriptions, saves a glasses prescription (both eyes), attaches
// the scan (JPEG, PNG, HEIC, TIFF or PDF: the daemon checks the bytes), then asks the owner
// which prescriptions it may read — vision prescriptions are authorized object by object — and
// prints what the owner granted, with each prescription's attachments.
import Foundation
import SalusKit
import SalusModel

let usage = """
    usage: VisionCard --scan FILE [--socket PATH] [--sphere D] [--cylinder D] [--axis DEG]
      saves a glasses prescription (sphere -10.5...+6.5 D, cylinder -3...+3 D, axis 0...180°)
      with FILE attached, asks which prescriptions it may read, and prints what was granted
    --socket PATH: default $SALUS_SOCKET, else the daemon's app socket
    """

/// A failure to show to the person.
struct CardError: Error, CustomStringConvertible {
    var description: String
}

/// `--name value` pairs.
func options(_ arguments: ArraySlice<String>) throws -> [String: String] {
    let known: Set<String> = ["--scan", "--socket", "--sphere", "--cylinder", "--axis"]
    var values: [String: String] = [:]
    var iterator = arguments.makeIterator()
    while let name = iterator.next() {
        guard known.contains(name) else {
            throw CardError(description: "\(name): not an option; expected one of \(known.sorted().joined(separator: ", "))")
        }
        guard let value = iterator.next() else { throw CardError(description: "\(name): a value is missing") }
        values[name] = value
    }
    return values
}

func number(_ values: [String: String], _ name: String, default value: Double?) throws -> Double? {
    guard let text = values[name] else { return value }
    guard let number = Double(text) else { throw CardError(description: "\(name): \"\(text)\" is not a number") }
    return number
}

func run() async throws {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.contains(where: { ["-h", "--help", "help"].contains($0) }) {
        print(usage)
        return
    }
    let values = try options(arguments)
    guard let scan = values["--scan"] else { throw CardError(description: "--scan: missing\n\(usage)") }
    let sphere = try number(values, "--sphere", default: -1.25)
    let cylinder = try number(values, "--cylinder", default: -0.5)
    let axis = try number(values, "--axis", default: 90)

    let store = try await HealthStore.connect(
        socketPath: values["--socket"], appID: "org.example.visioncard", appName: "Vision Card", appVersion: "1.0")
    defer { Task { await store.close() } }
    try await store.requestAuthorization(toShare: [.visionPrescription], read: [])

    let issued = Date()
    let prescription = VisionPrescription(
        prescriptionType: .glasses, dateIssued: issued,
        expirationDate: Calendar(identifier: .gregorian).date(byAdding: .year, value: 2, to: issued),
        rightEye: LensSpecification(sphere: sphere, cylinder: cylinder, axis: axis),
        leftEye: LensSpecification(sphere: sphere, cylinder: cylinder, axis: axis))
    let saved = try await store.save(
        Sample(
            type: "HKVisionPrescriptionTypeIdentifier", startDate: issued, endDate: issued,
            value: .visionPrescription(prescription),
            sourceRevision: SourceRevision(appID: "org.example.visioncard", name: "Vision Card")))
    print("saved glasses prescription \(saved.uuid.uuidString.lowercased())")

    let attachments = AttachmentStore(healthStore: store)
    let attachment = try await attachments.addAttachment(to: saved.uuid, url: URL(fileURLWithPath: scan))
    print("attached \(attachment.name) as \(attachment.contentType), \(attachment.size) bytes")

    print("asking the owner which prescriptions Vision Card may read…")
    try await store.requestPerObjectReadAuthorization(for: .visionPrescription)
    let query = SampleQueryDescriptor(type: .visionPrescription, sortDescriptors: [.startDate()])
    var granted: [Sample] = []
    for try await sample in query.samples(for: store) { granted.append(sample) }
    print("the owner granted \(granted.count) prescription\(granted.count == 1 ? "" : "s"):")
    for sample in granted {
        guard case .visionPrescription(let value) = sample.value else { continue }
        let files = try await attachments.attachments(for: sample.uuid)
        let issuedDay = value.dateIssued.formatted(.iso8601.year().month().day())
        print(
            "  \(sample.uuid.uuidString.lowercased())  \(value.prescriptionType) issued \(issuedDay)"
                + (value.isValid(at: Date()) ? ", valid today" : ", not valid today")
                + ", \(files.count) attachment\(files.count == 1 ? "" : "s")"
                + (files.isEmpty ? "" : ": " + files.map { "\($0.name) (\($0.contentType))" }.joined(separator: ", ")))
    }
}

do {
    try await run()
} catch let error as SalusError {
    FileHandle.standardError.write(Data("visioncard: \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("visioncard: \(error)\n".utf8))
    exit(1)
}
