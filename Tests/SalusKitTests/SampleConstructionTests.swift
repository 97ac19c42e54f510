import Foundation
import SalusKit
import SalusModel
import Testing

/// Samples made to save with the constructor every kind shares.
@Suite("Samples of any kind to save")
struct SampleConstructionTests {
    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("Sample(type:value:start:) is a kind's own constructor: its type, dates, no source yet, metadata")
    func anyKind() {
        let medication = UserAnnotatedMedication(conceptIdentifier: "rxnorm:197361", displayText: "Amlodipine 5 mg", generalForm: "tablet")
        let metadata: [String: MetadataValue] = ["org.example.note": .string("morning")]
        let made = Sample(type: .userAnnotatedMedication, value: .userAnnotatedMedication(medication), start: Self.date, metadata: metadata)
        let sugar = Sample.userAnnotatedMedication(medication, date: Self.date, metadata: metadata)
        #expect(made.type == sugar.type)
        #expect(made.startDate == Self.date && made.endDate == Self.date)
        #expect(made.value == sugar.value)
        #expect(made.sourceRevision == Sample.unsavedSource)
        #expect(made.metadata == metadata)
        #expect(made.userAnnotatedMedication == medication)

        let end = Self.date.addingTimeInterval(60)
        let device = Device(name: "Cuff")
        let heartRate = Sample(
            type: .quantity(.heartRate), value: .quantity(Quantity(value: 72, unit: .countPerMinute)), start: Self.date, end: end, device: device)
        #expect(heartRate.endDate == end)
        #expect(heartRate.device == device)
    }
}
