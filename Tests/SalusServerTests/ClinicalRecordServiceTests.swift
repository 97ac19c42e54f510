import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// FHIR R4 clinical records through the store service, in process: stored verbatim, typed by
/// resource type, queried by type and date, read per type as the owner allows.
@Suite("Clinical records through the store service")
struct ClinicalRecordServiceTests {
    static let allergy = "HKClinicalTypeIdentifierAllergyRecord"
    static let labResult = "HKClinicalTypeIdentifierLabResultRecord"

    static let penicillin = Data("""
        {"resourceType":"AllergyIntolerance","id":"allergy-1","clinicalStatus":{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical","code":"active"}]},"code":{"text":"Penicillin"},"patient":{"reference":"Patient/example"}}
        """.utf8)
    static let glucose = Data("""
        {"resourceType":"Observation","id":"lab-7","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]},"valueQuantity":{"value":95,"unit":"mg/dL"}}
        """.utf8)

    static func record(_ type: String, _ data: Data, received: Int64, source: String = "Community Health") -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = received
        sample.endDate = received
        sample.clinicalRecord.fhirData = data
        sample.clinicalRecord.sourceName = source
        sample.clinicalRecord.sourceURL = "https://fhir.example.org/r4"
        sample.clinicalRecord.receivedDate = received
        sample.clinicalRecord.displayName = "record"
        // What the daemon reads from the resource itself; a client's claim is ignored.
        sample.clinicalRecord.resourceType = "Patient"
        return sample
    }

    static func query(_ client: RPCClient, _ type: String, from start: Int64? = nil) async throws -> [Salus_V1_Sample] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        if let start { request.predicate.dateWindow.startDate = start }
        var samples: [Salus_V1_Sample] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.querySamples, request: request) {
            samples += batch.samples
        }
        return samples
    }

    static let day: Int64 = 86_400_000_000
    static let received: Int64 = 1_750_000_000_000_000

    @Test("records are stored verbatim with their resource type, id, source and received date, and queried by type and date")
    func saveAndQuery() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.records")
        _ = try await Authz.save(app, [
            Self.record(Self.allergy, Self.penicillin, received: Self.received),
            Self.record(Self.allergy, Self.penicillin, received: Self.received + 10 * Self.day),
            Self.record(Self.labResult, Self.glucose, received: Self.received + Self.day),
        ])
        let allergies = try await Self.query(app, Self.allergy)
        #expect(allergies.count == 2)
        let first = try #require(allergies.first)
        #expect(first.clinicalRecord.fhirData == Self.penicillin)
        #expect(first.clinicalRecord.resourceType == "AllergyIntolerance")
        #expect(first.clinicalRecord.resourceID == "allergy-1")
        #expect(first.clinicalRecord.fhirVersion == "4.0.1")
        #expect(first.clinicalRecord.sourceName == "Community Health")
        #expect(first.clinicalRecord.sourceURL == "https://fhir.example.org/r4")
        #expect(first.clinicalRecord.receivedDate == Self.received)
        #expect(try await Self.query(app, Self.allergy, from: Self.received + 5 * Self.day).count == 1)
        let labs = try await Self.query(app, Self.labResult)
        #expect(labs.map(\.clinicalRecord.resourceType) == ["Observation"])
        #expect(labs.map(\.clinicalRecord.resourceID) == ["lab-7"])
        await app.close()
        await server.stop()
    }

    @Test("a resource that is not JSON, not an object, of another resource type or without a source is refused naming the field")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.records")
        let cases: [(sample: Salus_V1_Sample, field: String, value: String)] = [
            (Self.record(Self.allergy, Self.glucose, received: Self.received), "samples[0].clinicalRecord.fhirData.resourceType", "Observation"),
            (Self.record(Self.allergy, Data("<Bundle/>".utf8), received: Self.received), "samples[0].clinicalRecord.fhirData", "9 bytes that are not JSON"),
            (Self.record(Self.allergy, Data("[1, 2]".utf8), received: Self.received), "samples[0].clinicalRecord.fhirData", "JSON that is not an object"),
            (Self.record(Self.allergy, Data("{\"id\":\"x\"}".utf8), received: Self.received), "samples[0].clinicalRecord.fhirData.resourceType", "missing or not a string"),
            (Self.record(Self.allergy, Data(), received: Self.received), "samples[0].clinicalRecord.fhirData", "no bytes"),
            (Self.record(Self.allergy, Self.penicillin, received: Self.received, source: " "), "samples[0].clinicalRecord.sourceName", "\"\""),
        ]
        for item in cases {
            let error = await Authz.error { _ = try await Authz.save(app, [item.sample]) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.detail?.field == item.field, "\(String(describing: error))")
            #expect(error?.detail?.value == item.value, "\(String(describing: error))")
        }
        #expect(try await Self.query(app, Self.allergy).isEmpty)
        await app.close()
        await server.stop()
    }

    @Test("read authorization is per type: an app allowed lab results reads no allergies")
    func perType() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        _ = try await Authz.save(owner, [
            Self.record(Self.allergy, Self.penicillin, received: Self.received),
            Self.record(Self.labResult, Self.glucose, received: Self.received),
        ])
        try await Authz.register(owner, "org.example.labs")
        try await Authz.grant(owner, "org.example.labs", Self.labResult, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.labs", Self.allergy, read: .denied, share: nil)
        let labs = try await Authz.app(server, "org.example.labs")
        #expect(try await Self.query(labs, Self.labResult).map(\.clinicalRecord.resourceID) == ["lab-7"])
        #expect(try await Self.query(labs, Self.allergy).isEmpty)
        for client in [labs, owner] { await client.close() }
        await server.stop()
    }
}
