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

    /// A body mass record of `value` kg on 2020-01-01 with the metadata entry `Note` = `note`.
    static func record(note: String, value: Double = 70) throws -> Sample {
        let xml = "<HealthData><Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"P\" unit=\"kg\" "
            + "startDate=\"2020-01-01 10:00:00 +0100\" endDate=\"2020-01-01 10:00:00 +0100\" value=\"\(value)\">"
            + "<MetadataEntry key=\"Note\" value=\"\(note)\"/></Record></HealthData>"
        let element = try #require(try ExportReaderTests.read(Data(xml.utf8)).elements.first)
        return try RecordMapper(catalog: ExportReaderTests.catalog).record(element).sample
    }

    @Test("an identity past 1,024 bytes (UTF-8) is named by the SHA-256 of its full text; one at or under it is kept as it reads")
    func longIdentityByDigest() throws {
        let empty = ImportIdentity.identifier(of: try Self.record(note: ""))
        #expect(empty == "applehealth:v2|1577869200000000|1577869200000000|70 kg|Note=")
        // Exactly at the limit: kept readable. One byte more (a two-byte character for a one-byte
        // one): a digest.
        let atLimit = String(repeating: "a", count: 1_024 - empty.utf8.count)
        let kept = ImportIdentity.identifier(of: try Self.record(note: atLimit))
        #expect(kept == empty + atLimit && kept.utf8.count == 1_024)
        let past = String(atLimit.dropLast()) + "é"
        let long = ImportIdentity.identifier(of: try Self.record(note: past))
        #expect(long.hasPrefix("applehealth:v2|sha256:") && long.utf8.count == "applehealth:v2|sha256:".utf8.count + 64, "\(long)")

        // Same record, same name; a long value one character apart, or another figure: another.
        let note = String(repeating: "x", count: 2_000)
        let first = ImportIdentity.identifier(of: try Self.record(note: note))
        let same = ImportIdentity.identifier(of: try Self.record(note: note))
        let other = ImportIdentity.identifier(of: try Self.record(note: String(note.dropLast()) + "y"))
        let otherValue = ImportIdentity.identifier(of: try Self.record(note: note, value: 71))
        #expect(first == same)
        #expect(first != other && first != otherValue && other != otherValue)
        // The digest is SHA-256 of the full text (UTF-8).
        var digest = SHA256Digest()
        digest.update((empty + note).utf8)
        #expect(first == "applehealth:v2|sha256:" + digest.hexDigest())
        // identified() stores the same name, with sync version 1.
        let identified = ImportIdentity.identified(try Self.record(note: note))
        #expect(identified.syncIdentifier == first)
        #expect(identified.metadata[MetadataKey.syncVersion] == .number(1))
        #expect(identified.validationErrors().isEmpty, "\(identified.validationErrors())")
    }
}
