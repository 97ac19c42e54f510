import Foundation
import SalusImport
import SalusModel
import Testing

/// The sync identifiers an import names samples by are stored: the text of a number in them must
/// never change from one version to the next, or a re-import would save everything twice.
@Suite("ImportIdentity")
struct ImportIdentityTests {
    @Test("numbers are written as C's %.12g, as Foundation's String(format:) wrote them in stored identifiers")
    func numbersAsStored() throws {
        let figures: [Double] = [
            0, 1, 72, 0.1, 0.97, 97.00000000000001, 1.0 / 3, 123_456_789_012.5, 1_234_567_890_123_456, 1e-7, 5e-324, 1e300,
            .greatestFiniteMagnitude, 6.02214076e23, 98.6, 36.8, 0.000123456789012345,
            // Whole numbers, around where %.12g turns to an exponent.
            -0.0, -72, 4096, 99_999_999_999, 999_999_999_999, 1e12, -1e12, 1_000_000_000_001, 9_007_199_254_740_992, -5e-324,
        ]
        let mapper = RecordMapper(catalog: ExportReaderTests.catalog)
        for figure in figures {
            let xml = "<HealthData><Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"P\" unit=\"kg\" "
                + "startDate=\"2020-01-01 10:00:00 +0100\" endDate=\"2020-01-01 10:00:00 +0100\" value=\"\(figure)\">"
                + "<MetadataEntry key=\"Figure\" value=\"\(figure)\"/></Record></HealthData>"
            let element = try #require(try ExportReaderTests.read(Data(xml.utf8)).elements.first)
            let sample = ImportIdentity.identified(try mapper.record(element).sample)
            let identifier = try #require(sample.syncIdentifier)
            let fields = identifier.split(separator: "|", omittingEmptySubsequences: false)
            let expected = String(format: "%.12g", figure)
            #expect(fields[3].split(separator: " ").first.map(String.init) == expected, "\(figure): \(identifier)")
        }
    }
}
