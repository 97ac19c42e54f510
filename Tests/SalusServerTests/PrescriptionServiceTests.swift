import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SalusWire
import Testing

/// Vision prescriptions through salus.v1.Store in process: a refused lens changes nothing and
/// names the eye, field and value; queries by type and validity.
@Suite("Vision prescriptions through the store service")
struct PrescriptionServiceTests {
    static let day: Int64 = 86_400_000_000
    static let start: Int64 = 1_700_000_000_000_000

    static func prescription(_ type: Int32, issued: Int64, expires: Int64?, brand: String? = nil) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = Authz.vision
        sample.startDate = issued
        sample.endDate = issued
        sample.visionPrescription.prescriptionType = type
        sample.visionPrescription.dateIssued = issued
        if let expires { sample.visionPrescription.expirationDate = expires }
        if let brand { sample.visionPrescription.brand = brand }
        sample.visionPrescription.rightEye.sphere = -1
        return sample
    }

    @Test("A lens out of range or a contacts prescription without a brand is INVALID_ARGUMENT naming the field; nothing is saved")
    func refusals() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.optician")
        try await Authz.grant(owner, "org.example.optician", Authz.vision, read: nil, share: .granted)
        let optician = try await Authz.app(server, "org.example.optician")

        var outOfRange = Self.prescription(1, issued: Self.start, expires: nil)
        outOfRange.visionPrescription.leftEye.sphere = -1
        outOfRange.visionPrescription.leftEye.cylinder = -3.5
        let valid = Self.prescription(1, issued: Self.start, expires: nil)
        let cylinder = await Authz.error { _ = try await Authz.save(optician, [valid, outOfRange]) }
        #expect(cylinder?.code == .invalidArgument)
        #expect(cylinder?.detail?.field == "samples[1].visionPrescription.leftEye.cylinder")
        #expect(cylinder?.detail?.value == "-3.5 D")

        let noBrand = await Authz.error { _ = try await Authz.save(optician, [Self.prescription(2, issued: Self.start, expires: nil)]) }
        #expect(noBrand?.detail?.field == "samples[0].visionPrescription.brand")
        #expect(try await Authz.batches(optician, type: Authz.vision).flatMap(\.samples).isEmpty)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }

    @Test("QuerySamples finds prescriptions by type and by validity at a date")
    func queries() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.optician")
        try await Authz.grant(owner, "org.example.optician", Authz.vision, read: nil, share: .granted)
        let optician = try await Authz.app(server, "org.example.optician")
        let saved = try await Authz.save(optician, [
            Self.prescription(1, issued: Self.start, expires: Self.start + 365 * Self.day),
            Self.prescription(2, issued: Self.start + 100 * Self.day, expires: nil, brand: "Acuvue"),
            Self.prescription(1, issued: Self.start + 400 * Self.day, expires: Self.start + 700 * Self.day),
        ]).results.map(\.uuid)

        func query(_ predicate: SamplePredicate) async throws -> [Data] {
            var request = Salus_V1_SampleQueryRequest()
            request.type = Authz.vision
            request.predicate = predicate.wire
            var uuids: [Data] = []
            for try await batch in try optician.serverStreaming(
                SalusMethods.Store.querySamples, request: request)
            {
                uuids += batch.samples.map(\.uuid)
            }
            return uuids
        }
        let at = { (days: Int64) in WireDate.date(Self.start + days * Self.day) }
        #expect(Set(try await query(.prescription(.prescriptionType(.glasses)))) == [saved[0], saved[2]])
        #expect(Set(try await query(.prescription(.validAt(at(200))))) == [saved[0], saved[1]])
        #expect(Set(try await query(.prescription(.validAt(at(500))))) == [saved[1], saved[2]])
        let wrongType = await Authz.error {
            var request = Salus_V1_SampleQueryRequest()
            request.type = Authz.steps
            request.predicate = SamplePredicate.prescription(.validAt(at(0))).wire
            for try await _ in try optician.serverStreaming(
                SalusMethods.Store.querySamples, request: request) {}
        }
        #expect(wrongType?.code == .invalidArgument)
        // The app's own predicate sits under the access restriction's `and`.
        #expect(wrongType?.detail?.field.hasSuffix(".prescription") == true)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }
}
