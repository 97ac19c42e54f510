import Foundation
import SalusModel
import SalusProto
import SalusWire
@testable import SalusSync
import Testing

/// Payloads of the server's sample rows, read into samples for the store.
@Suite struct SamplePayloadTests {
    @Test("a payload of two million empty voltages (4 MB; about 80 MB decoded) is refused before it is decoded, naming the list; a sample's own payload reads back")
    func emptyVoltages() throws {
        var wire = Salus_V1_Sample()
        wire.electrocardiogram.voltages = Array(repeating: Salus_V1_ElectrocardiogramVoltage(), count: 2_000_000)
        let payload: [UInt8] = try wire.serializedBytes()
        let error = #expect(throws: SyncError.self) { try SampleRow.sample(payload: payload) }
        #expect(error?.field == "payload.electrocardiogram.voltages", "\(String(describing: error))")

        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let sample = Sample(
            type: "HKQuantityTypeIdentifierHeartRate", startDate: start, endDate: start,
            value: .quantity(Quantity(value: 61, unit: .countPerMinute)),
            sourceRevision: SourceRevision(appID: "org.example.sync", name: "Sync"), creationDate: start)
        let bytes: [UInt8] = try sample.wire.serializedBytes()
        let read = try SampleRow.sample(payload: bytes)
        #expect(read.uuid == sample.uuid && read.value == sample.value)
    }
}
