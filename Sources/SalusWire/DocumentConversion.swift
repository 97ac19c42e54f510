import Foundation
import SalusModel
import SalusProto

extension ClinicalDocument: WireConvertibleValue {
    /// The model value of `wire`: an empty content type reads as "application/xml", empty
    /// extracted fields as unknown. On a save the daemon replaces the extracted fields with what
    /// it reads from `data`.
    package init(wire: Salus_V1_Document, path _: String = "document") {
        func text(_ value: String) -> String? { value.isEmpty ? nil : value }
        self.init(
            contentType: wire.contentType.isEmpty ? "application/xml" : wire.contentType,
            data: wire.data,
            title: text(wire.title),
            patientName: text(wire.patientName),
            authorName: text(wire.authorName),
            custodianName: text(wire.custodianName),
            effectiveTime: wire.optionalEffectiveTime != nil ? WireDate.date(wire.effectiveTime) : nil)
    }

    /// The wire form.
    package var wire: Salus_V1_Document {
        var wire = Salus_V1_Document()
        wire.contentType = contentType
        wire.data = data
        wire.title = title ?? ""
        wire.patientName = patientName ?? ""
        wire.authorName = authorName ?? ""
        wire.custodianName = custodianName ?? ""
        if let effectiveTime { wire.effectiveTime = WireDate.microseconds(effectiveTime) }
        return wire
    }
}

extension ClinicalRecord: WireConvertibleValue {
    /// The model value of `wire`: an empty FHIR version reads as
    /// ``ClinicalRecord/defaultFHIRVersion``; the resource type and id it carries are ignored
    /// (they are read from the resource).
    package init(wire: Salus_V1_ClinicalRecord, path _: String = "clinicalRecord") {
        self.init(
            fhirData: wire.fhirData,
            fhirVersion: wire.fhirVersion.isEmpty ? ClinicalRecord.defaultFHIRVersion : wire.fhirVersion,
            displayName: wire.displayName,
            sourceName: wire.sourceName,
            sourceURL: wire.sourceURL.isEmpty ? nil : wire.sourceURL,
            receivedDate: WireDate.date(wire.receivedDate))
    }

    /// The wire form, with the resource type and id read from the resource.
    package var wire: Salus_V1_ClinicalRecord {
        var wire = Salus_V1_ClinicalRecord()
        wire.fhirData = fhirData
        wire.fhirVersion = fhirVersion
        wire.displayName = displayName
        wire.sourceName = sourceName
        wire.sourceURL = sourceURL ?? ""
        wire.receivedDate = WireDate.microseconds(receivedDate)
        wire.resourceID = resourceID ?? ""
        wire.resourceType = resourceType
        return wire
    }
}
