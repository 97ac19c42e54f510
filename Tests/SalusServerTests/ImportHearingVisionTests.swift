import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Audiograms and vision prescriptions in an Apple Health export, imported in process.
@Suite("salus.v1.Import: audiograms and vision prescriptions")
struct ImportHearingVisionTests {
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_GB">
         <ExportDate value="2025-03-01 10:00:00 +0000"/>
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" sourceVersion="5.1" creationDate="2025-01-10 09:31:00 +0100" startDate="2025-01-10 09:20:00 +0100" endDate="2025-01-10 09:30:00 +0100">
          <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL" rightEarValue="15" rightEarUnit="dBHL"/>
          <SensitivityPoint frequencyValue="4" frequencyUnit="kHz" leftEarValue="35" leftEarUnit="dBHL" leftEarMasked="true" leftEarClampingRangeUpperBound="80" rightEarValue="20" rightEarUnit="dBHL"/>
         </Audiogram>
         <VisionPrescription type="HKVisionPrescriptionTypeGlasses" dateIssued="2024-11-02 00:00:00 +0100" expirationDate="2026-11-02 00:00:00 +0100">
          <RightEye sphere="-1.25" sphereUnit="D" cylinder="-0.5" cylinderUnit="D" axis="90" axisUnit="deg" farPD="3.1" farPDUnit="cm"/>
          <LeftEye sphere="-1" sphereUnit="D"/>
          <Attachment identifier="3C1F0D0E-8D0B-4E5A-9F0C-2B1E5C8A7D11"/>
         </VisionPrescription>
         <VisionPrescription type="HKVisionPrescriptionTypeContacts" dateIssued="2025-02-01 00:00:00 +0100" brand="Acuvue">
          <RightEye sphere="-1.5" sphereUnit="D" baseCurve="8.5" baseCurveUnit="mm" diameter="14.2" diameterUnit="mm"/>
          <LeftEye sphere="-1.25" sphereUnit="D" baseCurve="8.5" baseCurveUnit="mm" diameter="14.2" diameterUnit="mm"/>
         </VisionPrescription>
         <VisionPrescription type="HKVisionPrescriptionTypeGlasses" dateIssued="2023-05-01 00:00:00 +0100">
          <RightEye sphere="-1" sphereUnit="furlong"/>
         </VisionPrescription>
        </HealthData>
        """

    @Test("audiograms keep every ear's test with its unit converted; prescriptions their lenses; a bad unit is refused naming the attribute")
    func audiogramsAndPrescriptions() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = Data(Self.export.utf8)
        let report = try await ImportServiceTests.importExport(owner, data, chunk: 300)
        #expect(report.saved == 3 && report.skipped == 1, "\(report)")
        #expect(report.notImported["VisionPrescription.Attachment"] == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.element == "VisionPrescription" && problem.field == "RightEye.sphereUnit" && problem.value == "furlong")
        #expect(problem.line == 18)

        let audiograms = try await ImportServiceTests.samples(owner, "HKDataTypeIdentifierAudiogram")
        let audiogram = try #require(audiograms.first?.audiogram)
        #expect(audiograms.count == 1 && audiograms.first?.sourceRevision.name == "Mimi")
        #expect(audiogram.sensitivityPoints.map(\.frequency) == [500, 4000])
        let high = audiogram.sensitivityPoints[1].tests
        #expect(high.map(\.sensitivity) == [35, 20])
        #expect(high.map(\.side) == [0, 1] && high.map(\.masked) == [true, false])
        #expect(high[0].clampingRange.upperBound == 80 && high[0].clampingRange.optionalLowerBound == nil)

        let prescriptions = try await ImportServiceTests.samples(owner, "HKVisionPrescriptionTypeIdentifier")
            .sorted { $0.visionPrescription.dateIssued < $1.visionPrescription.dateIssued }
        #expect(prescriptions.count == 2)
        let glasses = try #require(prescriptions.first?.visionPrescription)
        #expect(glasses.prescriptionType == 1 && glasses.optionalExpirationDate != nil)
        #expect(glasses.rightEye.sphere == -1.25 && glasses.rightEye.cylinder == -0.5 && glasses.rightEye.axis == 90)
        #expect(abs(glasses.rightEye.farPupillaryDistance - 31) < 1e-9, "3.1 cm is 31 mm")
        #expect(glasses.leftEye.sphere == -1)
        let contacts = try #require(prescriptions.last?.visionPrescription)
        #expect(contacts.prescriptionType == 2 && contacts.brand == "Acuvue" && contacts.leftEye.diameter == 14.2)

        let again = try await ImportServiceTests.importExport(owner, data)
        #expect(again.saved == 0 && again.keptExisting == 3, "\(again)")
        #expect(try await ImportServiceTests.samples(owner, "HKVisionPrescriptionTypeIdentifier").count == 2)
        await owner.close()
        await server.stop()
    }

    @Test("an audiogram of many points, whose content identity passes 1,024 bytes, is named by its digest: saved, and once however often imported")
    func longAudiogramIdentity() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await server.owner()
        // Sixteen frequencies, each ear masked and clamped: some 150 bytes of content a point.
        let points = (1...16).map { index in
            "<SensitivityPoint frequencyValue=\"\(index * 500)\" frequencyUnit=\"Hz\" leftEarValue=\"\(index + 10)\" leftEarUnit=\"dBHL\" "
                + "leftEarMasked=\"true\" leftEarClampingRangeUpperBound=\"90\" rightEarValue=\"\(index + 15)\" rightEarUnit=\"dBHL\" "
                + "rightEarMasked=\"false\" rightEarClampingRangeUpperBound=\"90\"/>"
        }
        let export = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_GB">
             <ExportDate value="2025-03-01 10:00:00 +0000"/>
             <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" startDate="2025-01-10 09:20:00 +0100" endDate="2025-01-10 09:30:00 +0100">
              \(points.joined(separator: "\n  "))
             </Audiogram>
             <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" startDate="2025-01-11 09:20:00 +0100" endDate="2025-01-11 09:30:00 +0100">
              \(points[0])
             </Audiogram>
            </HealthData>
            """.utf8)
        let report = try await ImportServiceTests.importExport(owner, export)
        #expect(report.saved == 2 && report.skipped == 0, "\(report)")
        let audiograms = try await ImportServiceTests.samples(owner, "HKDataTypeIdentifierAudiogram")
            .sorted { $0.audiogram.sensitivityPoints.count > $1.audiogram.sensitivityPoints.count }
        #expect(audiograms.map(\.audiogram.sensitivityPoints.count) == [16, 1])
        let long = audiograms.first?.metadata["HKMetadataKeySyncIdentifier"]?.stringValue ?? ""
        #expect(long.hasPrefix("applehealth:sha256:") && long.utf8.count == "applehealth:sha256:".utf8.count + 64, "\(long.prefix(80))")
        // A short one keeps its readable form: the dates as the export wrote them, then the points.
        let short = audiograms.last?.metadata["HKMetadataKeySyncIdentifier"]?.stringValue ?? ""
        #expect(short.hasPrefix("applehealth:2025-01-11 09:20:00 +0100|2025-01-11 09:30:00 +0100|frequencyUnit=Hz,"), "\(short)")

        let again = try await ImportServiceTests.importExport(owner, export)
        #expect(again.saved == 0 && again.keptExisting == 2, "\(again)")
    }
}
