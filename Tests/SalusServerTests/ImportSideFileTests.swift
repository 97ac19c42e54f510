import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Clinical records and electrocardiograms: files beside export.xml, imported in process.
@Suite("salus.v1.Import: clinical records and electrocardiograms")
struct ImportSideFileTests {
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2026-03-01 10:00:00 -0500"/>
         <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="imm-1" sourceName="Mercy Clinic" sourceURL="https://fhir.example.org/r4" fhirVersion="4.0.1" receivedDate="2026-02-02 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-1.json"/>
         <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="lab-1" sourceName="Mercy Clinic" fhirVersion="4.0.1" receivedDate="2026-02-03 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-1.json"/>
         <ClinicalRecord type="HKClinicalTypeIdentifierConditionRecord" identifier="cond-1" sourceName="Mercy Clinic" fhirVersion="4.0.1" receivedDate="2026-02-04 10:00:00 -0500" resourceFilePath="/clinical-records/Condition-9.json"/>
        </HealthData>
        """

    static let immunization = Data(#"{"resourceType":"Immunization","id":"1","status":"completed","vaccineCode":{"text":"Influenza"}}"#.utf8)

    static func electrocardiogram(voltages: Int) -> Data {
        var lines = [
            "Name,Test Person", "Date of Birth,\"Jan 15, 1990\"", "Recorded Date,2026-02-10 07:15:00 -0500",
            "Classification,Sinus Rhythm", "Symptoms,", "Software Version,1.90", "Device,\"Watch6,7\"", "Sample Rate,512 hertz", "",
            "Lead,Lead I", "Unit,µV", "",
        ]
        lines += (0..<voltages).map { String(format: "%.3f", sin(Double($0) / 20) * 300) }
        return Data(lines.joined(separator: "\n").utf8)
    }

    @Test("a clinical record takes its FHIR file; an ECG file is a recording; a record whose resource does not fit, or whose file never comes, is a problem with its line")
    func clinicalRecordsAndElectrocardiograms() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = Data(Self.export.utf8)
        let files = [
            ("clinical-records/Immunization-1.json", Self.immunization),
            ("electrocardiograms/ecg_2026-02-10.csv", Self.electrocardiogram(voltages: 15_360)),
        ]
        let report = try await ImportServiceTests.importExport(owner, data, sideFiles: files, chunk: 4000)
        #expect(report.saved == 2, "\(report)")
        #expect(report.elements["ClinicalRecord"] == 3 && report.elements["electrocardiograms/*.csv"] == 1)
        let problems = report.problems.sorted { $0.line < $1.line }
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first?.line == 5 && problems.first?.value.contains("Immunization") == true, "an Immunization is not a lab result")
        #expect(problems.last?.line == 6 && problems.last?.field == "resourceFilePath" && problems.last?.value == "clinical-records/Condition-9.json")

        let records = try await ImportServiceTests.samples(owner, "HKClinicalTypeIdentifierImmunizationRecord")
        let record = try #require(records.first?.clinicalRecord)
        #expect(records.count == 1 && record.fhirData == Self.immunization && record.sourceName == "Mercy Clinic")
        #expect(record.sourceURL == "https://fhir.example.org/r4" && record.fhirVersion == "4.0.1")

        let recordings = try await ImportServiceTests.samples(owner, "HKDataTypeIdentifierElectrocardiogram")
        let recording = try #require(recordings.first)
        #expect(recordings.count == 1 && recording.electrocardiogram.numberOfVoltageMeasurements == 15_360)
        #expect(recording.electrocardiogram.classification == 1 && recording.electrocardiogram.samplingFrequency == 512)
        #expect(recording.endDate - recording.startDate == 30_000_000, "15,360 voltages at 512 Hz: 30 s in microseconds")

        let again = try await ImportServiceTests.importExport(owner, data, sideFiles: files)
        #expect(again.saved == 0 && again.keptExisting == 2, "\(again)")
        await owner.close()
        await server.stop()
    }
}
