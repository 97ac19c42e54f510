import Foundation
import SalusKit
import SalusModel
import SalusWire

/// The person's clinical documents (HL7 CDA), as `salusctl documents` adds, lists and shares them.
extension AdminClient {
    /// HealthKit's CDA document type, whose objects an app reads only when granted each.
    public static let documentType = "HKDocumentTypeIdentifierCDA"

    /// Saves `data`, a CDA document the person received, as the owner's sample, dated by the
    /// document's effective time, then lets each app of `readers` read it. Returns the saved
    /// document without its XML.
    ///
    /// Every reader must be registered: an unknown one is ``SalusError/Code/notFound`` and
    /// nothing is saved. A document the daemon's check refuses is
    /// ``SalusError/Code/invalidArgument`` naming `samples[0].document.data` and the reason; so
    /// is one larger than a sample may be (`Validation.maximumSampleBytes`), before it is sent:
    /// one larger than a request frame would otherwise fail as a frame, not as a document.
    public func addDocument(_ data: Data, readers: [String] = []) async throws -> Sample {
        guard data.count <= Validation.maximumSampleBytes else {
            let expected = "a document of at most \(Validation.maximumSampleBytes) bytes: a sample is read back whole, in one frame"
            throw SalusError(
                code: .invalidArgument, message: "samples[0].document.data: \(data.count) bytes; expected \(expected)",
                field: "samples[0].document.data", value: "\(data.count) bytes", expected: expected)
        }
        for reader in readers { _ = try await app(reader) }
        let uuid = try await store.save(.cdaDocument(data)).uuid
        try await shareDocument(uuid, with: readers)
        guard let saved = try await document(uuid) else {
            throw SalusError(code: .notFound, message: "uuid: \(uuid.uuidString.lowercased()) is not a document")
        }
        return saved
    }

    /// Every app's CDA documents, oldest first (by effective time); their XML only with
    /// `includeData`.
    public func documents(includeData: Bool = false) async throws -> [Sample] {
        try await documents(matching: nil, includeData: includeData)
    }

    /// The CDA document `uuid`, its XML only with `includeData`; nil when no document has that
    /// UUID.
    public func document(_ uuid: UUID, includeData: Bool = false) async throws -> Sample? {
        try await documents(matching: .uuids([uuid]), includeData: includeData).first
    }

    /// Lets each app of `apps` read the document `uuid` (per-object read; `withdrawObjects` takes
    /// it back). ``SalusError/Code/notFound`` for an app not registered.
    public func shareDocument(_ uuid: UUID, with apps: [String]) async throws {
        for reader in apps { try await grantObjects([uuid], type: Self.documentType, to: reader) }
    }

    private func documents(matching predicate: SamplePredicate?, includeData: Bool) async throws -> [Sample] {
        try await samples(SampleQueryDescriptor(
            type: .cdaDocument, predicate: predicate, sortDescriptors: [.startDate()], includeDocumentData: includeData))
    }
}

extension AdminJSON {
    /// One sample's proto3 JSON (`salus.v1.Sample`, a document's XML as base64 when it was read
    /// with it): what `salusctl documents show --json` and `add --json` print.
    public static func text(sample: Sample) throws -> String {
        try sample.wire.jsonString(options: options)
    }

    /// A JSON array of the samples' proto3 JSON, pretty and with sorted keys: what
    /// `salusctl documents list --json` prints.
    public static func text(samples: [Sample]) throws -> String {
        let objects = try samples.map { try JSONSerialization.jsonObject(with: Data(text(sample: $0).utf8)) }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
