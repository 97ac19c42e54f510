import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// An import maps and checks its elements on every core (`OrderedWork`, jobs of 256 elements):
/// what is saved and what is reported must be exactly what one thread reading the file in order
/// would give.
@Suite("salus.v1.Import: workers")
struct ImportWorkerTests {
    /// `count` heart rates, each an hour before the one above it (so the file's order is not the
    /// dates'), valued 40 + their index modulo 150; `bad` maps an index to the attributes that
    /// replace its unit and value. Record `i` is on line 4 + i.
    static func export(count: Int, bad: [Int: String]) -> Data {
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        func at(_ index: Int) -> String { ImportMergeTests.stamp(start.addingTimeInterval(-3600 * Double(index)), offset: 3600) }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<HealthData locale=\"en_GB\">", " <ExportDate value=\"\(at(0))\"/>"]
        for index in 0..<count {
            let figure = bad[index] ?? "unit=\"count/min\" value=\"\(40 + index % 150)\""
            lines.append(
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" \(figure) "
                    + "startDate=\"\(at(index))\" endDate=\"\(at(index))\"/>")
        }
        lines.append("</HealthData>")
        return Data(lines.joined(separator: "\n").utf8)
    }

    @Test("1,500 records over six jobs: saved in the file's order, the two bad ones reported with their lines in order and nothing of theirs saved")
    func orderAndErrors() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let bad = [700: "unit=\"count/min\" value=\"abc\"", 1200: "unit=\"furlong\" value=\"5\""]
        let data = Self.export(count: 1500, bad: bad)
        let report = try await ImportServiceTests.importExport(owner, data, chunk: 16_384)
        #expect(report.skipped == 2)
        #expect(report.saved == 1498)
        #expect(report.elements["Record"] == 1500)
        let lines: [UInt32] = [704, 1204]
        #expect(report.problems.map(\.line) == lines)
        #expect(report.problems.map(\.element) == ["Record", "Record"])
        #expect(report.problems.first?.value.contains("abc") == true)
        #expect(report.problems.last?.value.contains("furlong") == true)

        // The change feed gives samples in the order they were saved: the file's.
        let store = HealthStore(client: owner)
        let changes = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.quantity(.heartRate))]).result(for: store)
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        let expected: [Date] = (0..<1500).filter { bad[$0] == nil }.map { start.addingTimeInterval(-3600 * Double($0)) }
        #expect(changes.addedSamples.map(\.startDate) == expected)
        let figures: [Double] = changes.addedSamples.map { sample in
            if case .quantity(let quantity) = sample.value { return quantity.value }
            return -1
        }
        let expectedFigures: [Double] = (0..<1500).filter { bad[$0] == nil }.map { Double(40 + $0 % 150) }
        #expect(figures == expectedFigures)

        // Again: everything is already there, the same two are reported, nothing changes.
        let again = try await ImportServiceTests.importExport(owner, data, chunk: 100_000)
        #expect(again.saved == 0)
        #expect(again.keptExisting == 1498)
        #expect(again.problems.map(\.line) == lines)
        let after = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.quantity(.heartRate))], anchor: changes.newAnchor).result(for: store)
        #expect(after.addedSamples.isEmpty && after.deletedObjects.isEmpty)
        await server.stop()
    }
}
