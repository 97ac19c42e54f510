import Foundation
import Testing

@testable import SalusModel

/// Clinical records through the catalog's one check: each HealthKit clinical type holds its FHIR
/// resource types and no others.
@Suite("Clinical records: rules")
struct ClinicalRecordValidationTests {
    static let catalog = TypeCatalog(
        types: ClinicalRecord.resourceTypes.keys.map { TypeRules(identifier: $0.rawValue, kind: .clinicalRecord) }
            + [TypeRules(identifier: "org.example.clinic.record", kind: .clinicalRecord)])

    static func sample(_ type: TypeIdentifier, resourceType: String) -> Sample {
        let json = #"{"resourceType":"\#(resourceType)","id":"r-1"}"#
        return Sample(
            type: type, startDate: Date(timeIntervalSince1970: 1_700_000_000), endDate: Date(timeIntervalSince1970: 1_700_000_000),
            value: .clinicalRecord(
                ClinicalRecord(fhirData: Data(json.utf8), sourceName: "Community Health", receivedDate: Date(timeIntervalSince1970: 1_700_000_000))),
            sourceRevision: SourceRevision(appID: "org.example.records", name: "Records"))
    }

    @Test("each clinical type accepts its resource types and refuses the others, naming the resource type", arguments: ClinicalRecord.resourceTypes.keys.map(\.rawValue).sorted())
    func resourceTypes(_ identifier: String) {
        let type = TypeIdentifier(rawValue: identifier)
        let allowed = ClinicalRecord.resourceTypes[type] ?? []
        for resourceType in allowed {
            #expect(Self.catalog.validationErrors(of: Self.sample(type, resourceType: resourceType)).isEmpty, "\(identifier) \(resourceType)")
        }
        let everyResourceType = Set(ClinicalRecord.resourceTypes.values.joined()).union(["Patient"])
        for resourceType in everyResourceType.subtracting(allowed) {
            let error = Self.catalog.validationErrors(of: Self.sample(type, resourceType: resourceType)).first
            #expect(error?.field == "sample.clinicalRecord.fhirData.resourceType", "\(identifier) \(resourceType)")
            #expect(error?.value == resourceType)
        }
    }

    @Test("a third-party clinical type accepts any resource type; an empty FHIR version is refused")
    func otherTypes() {
        #expect(Self.catalog.validationErrors(of: Self.sample("org.example.clinic.record", resourceType: "Patient")).isEmpty)
        var sample = Self.sample("HKClinicalTypeIdentifierConditionRecord", resourceType: "Condition")
        guard case .clinicalRecord(var record) = sample.value else { return }
        record.fhirVersion = ""
        sample.value = .clinicalRecord(record)
        #expect(Self.catalog.validationErrors(of: sample).map(\.field) == ["sample.clinicalRecord.fhirVersion"])
    }
}
