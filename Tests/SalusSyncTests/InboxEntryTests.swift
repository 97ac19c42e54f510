import Foundation
import SalusModel
import SalusSync
import Testing

/// Inbox rows become samples with the sync keys, or errors naming the column.
@Suite struct InboxEntryTests {
    func entry(value: Double? = 71.5, unit: String? = "kg", category: Int? = nil, metadata: String = "{}") -> InboxEntry {
        InboxEntry(
            id: 7, type: "HKQuantityTypeIdentifierBodyMass", start: Date(timeIntervalSince1970: 1_780_000_000), end: nil,
            quantityValue: value, quantityUnit: unit, categoryValue: category, metadataJSON: metadata,
            syncIdentifier: "visit-1", syncVersion: 2)
    }

    @Test("a quantity row: the value, the unit, the metadata forms and the two sync keys")
    func quantity() throws {
        let sample = try entry(metadata: #"{"clinic": "North", "fasting": true, "dose": 2, "taken": {"date": "2026-05-01T08:00:00Z"}, "room": {"value": 21.5, "unit": "degC"}}"#).sample()
        guard case .quantity(let quantity) = sample.value else { Issue.record("not a quantity"); return }
        #expect(quantity.value == 71.5 && quantity.unit == .kilogram)
        #expect(sample.endDate == sample.startDate)
        #expect(sample.syncIdentifier == "visit-1" && sample.syncVersion == 2)
        #expect(sample.metadata["clinic"] == .string("North"))
        #expect(sample.metadata["fasting"] == .bool(true))
        #expect(sample.metadata["dose"] == .number(2))
        #expect(sample.metadata["taken"] == .date(Date(timeIntervalSince1970: 1_777_622_400)))
        #expect(sample.metadata["room"]?.type == .quantity)
    }

    @Test("rows that cannot become a sample name the column and the value", arguments: [
        (71.5, nil, nil, "{}", "quantity_unit"),
        (71.5, "furlongs", nil, "{}", "furlongs"),
        (nil, nil, nil, "{}", "category_value"),
        (71.5, "kg", nil, "[1, 2]", "metadata"),
        (71.5, "kg", nil, #"{"taken": {"date": "yesterday"}}"#, "yesterday"),
    ] as [(Double?, String?, Int?, String, String)])
    func rejected(value: Double?, unit: String?, category: Int?, metadata: String, mentioned: String) {
        #expect {
            try entry(value: value, unit: unit, category: category, metadata: metadata).sample()
        } throws: { error in
            "\(error)".contains(mentioned) && "\(error)".contains("salus.inbox[7]")
        }
    }
}
