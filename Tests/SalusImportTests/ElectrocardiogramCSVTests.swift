import Foundation
import SalusImport
import SalusModel
import Testing

/// Apple Watch electrocardiogram files of an export (`electrocardiograms/ecg_….csv`).
@Suite("Electrocardiogram CSV files")
struct ElectrocardiogramCSVTests {
    /// A file in the shape exports write: quoted values holding commas, blank lines in the
    /// header, `count` voltages of a 512 Hz recording.
    static func csv(count: Int, decimalComma: Bool = false, rate: String = "512 hertz", recorded: String = "2026-08-26 18:15:35 +0100") -> String {
        var lines = [
            "Name,Test Person", "Date of Birth,\"Jan 15, 1990\"", "Recorded Date,\(recorded)", "Classification,Atrial Fibrillation",
            "Symptoms,", "Software Version,1.90", "Device,\"Watch6,7\"", "Sample Rate,\(rate)", "", "", "Lead,Lead I", "Unit,µV", "", "",
        ]
        for index in 0..<count {
            let value = String(format: "%.3f", Double(index) * 0.5 - 100)
            lines.append(decimalComma ? value.replacingOccurrences(of: ".", with: ",") : value)
        }
        return lines.joined(separator: "\n")
    }

    @Test("a recording: its date, rate, classification, device and every voltage, in either decimal style")
    func recording() throws {
        for comma in [false, true] {
            let sample = try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 1024, decimalComma: comma).utf8), path: "ecg.csv")
            guard case .electrocardiogram(let ecg) = sample.value else {
                Issue.record("not an electrocardiogram: \(sample.value)")
                return
            }
            #expect(sample.startDate == RecordMapperDates.parse("2026-08-26 18:15:35 +0100"))
            #expect(sample.endDate.timeIntervalSince(sample.startDate) == 2, "1024 voltages at 512 Hz last 2 s")
            #expect(ecg.classification == .atrialFibrillation && ecg.symptomsStatus == .notSet && ecg.samplingFrequency == 512)
            #expect(ecg.voltages.count == 1024 && ecg.numberOfVoltageMeasurements == 1024)
            #expect(ecg.voltages[3].microvolts == -98.5 && ecg.voltages[3].timeSinceSampleStart == 3.0 / 512)
            #expect(sample.device?.name == "Watch6,7" && sample.sourceRevision.version == "1.90")
        }
        let first = try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 10).utf8), path: "a.csv")
        let second = try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 10).utf8), path: "b.csv")
        #expect(first.metadata[MetadataKey.syncIdentifier] == second.metadata[MetadataKey.syncIdentifier], "the same recording twice is one")
    }

    @Test("a file without a date, a rate or voltages is refused naming what is missing")
    func refusals() {
        #expect(throws: ImportRefusal.self) { try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 10, recorded: "yesterday").utf8), path: "x.csv") }
        do {
            _ = try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 10, rate: "fast").utf8), path: "x.csv")
            Issue.record("a file without a rate was read")
        } catch {
            #expect(error.field == "x.csv: Sample Rate" && error.value == "fast")
        }
        do {
            _ = try ElectrocardiogramCSV.sample(from: Data(Self.csv(count: 0).utf8), path: "x.csv")
            Issue.record("a file without voltages was read")
        } catch {
            #expect(error.value == "no voltages")
        }
    }
}
