import Foundation
import SalusImport
import SalusModel
import SalusProto
import SalusRPC
import SalusServer
import SalusTestSupport
import Testing
import ZIPFoundation

/// Imports whose memory would grow with the file, and absurd electrocardiograms: each refused
/// with a problem naming the file, the size and the limit, in process. The limits are injected
/// small (``ImportLimits``) rather than gigabytes written.
@Suite("salus.v1.Import: limits")
struct ImportLimitTests {
    /// An owner's client of an Import service held to `limits`, over the harness's store.
    static func importer(_ server: ServerHarness, limits: ImportLimits) async throws -> RPCClient {
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        ImportService(store: server.services.store, settings: server.services.settings, limits: limits).register(into: &router)
        return try await server.services.server.connectInProcess(
            router: router, listener: SalusServices.adminListener, admission: server.services.adminAdmission)
    }

    static let export = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2026-03-01 10:00:00 -0500"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2026-02-01 10:00:00 -0500" endDate="2026-02-01 10:30:00 -0500">
          <WorkoutRoute sourceName="Watch" startDate="2026-02-01 10:00:00 -0500" endDate="2026-02-01 10:30:00 -0500">
           <FileReference path="/workout-routes/route_1.gpx"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>
        """.utf8)

    /// An electrocardiogram file with `voltages` (each line one voltage).
    static func electrocardiogram(recorded: String = "2026-02-10 07:15:00 -0500", rate: String = "512 hertz", voltages: [String]) -> Data {
        let header = ["Name,Test", "Recorded Date,\(recorded)", "Classification,Sinus Rhythm", "Sample Rate,\(rate)", "Unit,µV", ""]
        return Data((header + voltages).joined(separator: "\n").utf8)
    }

    static func ordinaryVoltages(_ count: Int) -> [String] {
        (0..<count).map { String(format: "%.3f", sin(Double($0) / 20) * 300) }
    }

    @Test(
        "absurd electrocardiograms are refused by the model's check, naming the field: a rate of 1e-300 Hz, voltages of ±1.79e308 µV, a recording ending in the year 10000",
        arguments: [
            ("2026-02-10 07:15:00 -0500", "1e-300 hertz", ordinaryVoltages(10), "samplingFrequency|endDate"),
            ("2026-02-10 07:15:00 -0500", "512 hertz", ["12.5", "1.79e308", "-1.79e308"], "voltages[1].microvolts"),
            ("2026-02-10 07:15:00 -0500", "512 hertz", ["12.5", "-1.79e308"], "voltages[1].microvolts"),
            ("9999-12-31 23:59:59 +0000", "512 hertz", ordinaryVoltages(1024), "endDate"),
        ])
    func absurdElectrocardiograms(recorded: String, rate: String, voltages: [String], field: String) async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let file = Self.electrocardiogram(recorded: recorded, rate: rate, voltages: voltages)
        let report = try await ImportServiceTests.importExport(owner, Self.export, sideFiles: [("electrocardiograms/ecg_1.csv", file)])
        let problem = report.problems.first { $0.element == "electrocardiograms/ecg_1.csv" || $0.element == "electrocardiogram" }
        let fields = field.split(separator: "|").map(String.init)
        #expect(fields.contains { problem?.field.hasSuffix($0) == true }, "\(report.problems)")
        #expect(try await ImportServiceTests.samples(owner, "HKDataTypeIdentifierElectrocardiogram").isEmpty)
        await owner.close()
        await server.stop()
    }

    @Test("an electrocardiogram longer than the limit is refused naming the file, the count and the limit, without reading it all")
    func longElectrocardiogram() async throws {
        let server = try await ServerHarness.start()
        var limits = ImportLimits.standard
        limits.maximumElectrocardiogramVoltages = 1000
        let importer = try await Self.importer(server, limits: limits)
        let report = try await ImportServiceTests.importExport(
            importer, Self.export,
            sideFiles: [
                ("electrocardiograms/long.csv", Self.electrocardiogram(voltages: Self.ordinaryVoltages(5000))),
                ("electrocardiograms/fits.csv", Self.electrocardiogram(recorded: "2026-02-11 07:15:00 -0500", voltages: Self.ordinaryVoltages(1000))),
            ])
        let problem = try #require(report.problems.first { $0.field.contains("long.csv") }, "\(report.problems)")
        #expect(problem.value.contains("more than 1000 voltages"), "\(problem)")
        #expect(problem.expected.contains("at most 1000 voltages"), "\(problem)")
        let owner = try await server.owner()
        let saved = try await ImportServiceTests.samples(owner, "HKDataTypeIdentifierElectrocardiogram")
        #expect(saved.map(\.electrocardiogram.numberOfVoltageMeasurements) == [1000])
        // The daemon's limit is the model's.
        #expect(ImportLimits.standard.maximumElectrocardiogramVoltages == Electrocardiogram.maximumVoltageCount)
        for client in [importer, owner] { await client.close() }
        await server.stop()
    }

    @Test("a side file above the limit is a problem naming the file, the size and the limit; it is not kept")
    func largeSideFile() async throws {
        let server = try await ServerHarness.start()
        var limits = ImportLimits.standard
        limits.maximumSideFileBytes = 10_000
        let importer = try await Self.importer(server, limits: limits)
        let gpx = Data(("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>" + String(repeating: " ", count: 50_000)
            + "</trkseg></trk></gpx>").utf8)
        let report = try await ImportServiceTests.importExport(
            importer, Self.export,
            sideFiles: [
                ("workout-routes/route_1.gpx", gpx),
                ("electrocardiograms/big.csv", Self.electrocardiogram(voltages: Self.ordinaryVoltages(5000))),
            ])
        let route = try #require(report.problems.first { $0.element == "WorkoutRoute" }, "\(report.problems)")
        #expect(route.field == "FileReference.path" && route.value.contains("workout-routes/route_1.gpx"), "\(route)")
        #expect(route.value.contains("more than 10000 bytes") && route.expected.contains("at most 10000 bytes"), "\(route)")
        let ecg = try #require(report.problems.first { $0.field.contains("big.csv") || $0.value.contains("big.csv") }, "\(report.problems)")
        #expect(ecg.value.contains("more than 10000 bytes") && ecg.expected.contains("at most 10000 bytes"), "\(ecg)")
        await importer.close()
        await server.stop()
    }

    @Test("export.xml nested 100,000 deep, or with an endless attribute, is refused naming the line; the daemon serves on")
    func hostileExport() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let depth = 100_000
        let nested = "<HealthData>\n<Record type=\"HKQuantityTypeIdentifierStepCount\">\n" + String(repeating: "<a>", count: depth)
            + String(repeating: "</a>", count: depth) + "</Record></HealthData>"
        let deep = await Authz.error { _ = try await ImportServiceTests.importExport(owner, Data(nested.utf8), chunk: 1 << 16) }
        #expect(deep?.code == .invalidArgument && deep?.detail?.field == "data", "\(String(describing: deep))")
        #expect(deep?.detail?.value.contains("line 3") == true, "\(String(describing: deep))")
        #expect(deep?.detail?.value.contains("nested") == true || deep?.detail?.expected.contains("nested") == true, "\(String(describing: deep))")

        var limits = ImportLimits.standard
        limits.maximumMarkupBytes = 64 << 10
        let importer = try await Self.importer(server, limits: limits)
        let endless = Data("<HealthData>\n<Record device=\"".utf8) + Data(repeating: UInt8(ascii: "x"), count: 8 << 20)
        let long = await Authz.error { _ = try await ImportServiceTests.importExport(importer, endless, chunk: 1 << 16) }
        #expect(long?.code == .invalidArgument && long?.detail?.value.contains("line 2") == true, "\(String(describing: long))")
        #expect("\(String(describing: long))".contains("65536"), "\(String(describing: long))")
        // Still serving.
        let fine = try await ImportServiceTests.importExport(owner, Self.export)
        #expect(fine.elements["Workout"] == 1)
        for client in [importer, owner] { await client.close() }
        await server.stop()
    }

    @Test("a zip entry that lies about its size is cut at the limit while it inflates, never read whole")
    func zipBomb() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-zip-bomb-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("export.zip")
        // 32 MiB of zeros deflate to about 32 KiB.
        let size = 32 << 20
        let archive = try Archive(url: url, accessMode: .create)
        try archive.addEntry(
            with: "apple_health_export/workout-routes/route.gpx", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate,
            provider: { position, length in Data(count: min(length, size - Int(position))) })
        // The local header and the central directory both say 100 bytes.
        var bytes = try Data(contentsOf: url)
        for (signature, offset) in [([UInt8]([0x50, 0x4B, 0x03, 0x04]), 22), ([0x50, 0x4B, 0x01, 0x02], 24)] {
            let start = try #require(bytes.firstRange(of: signature)?.lowerBound)
            bytes.replaceSubrange((start + offset)..<(start + offset + 4), with: [100, 0, 0, 0])
        }
        try bytes.write(to: url)
        #expect(bytes.count < 1 << 20)

        let limit = 1 << 20
        var received = 0
        var sent = Data()
        let outcome = try SideFileReader.read(
            limit: limit,
            produce: { consume in
                let archive = try Archive(url: url, accessMode: .read)
                let entry = try #require(archive["apple_health_export/workout-routes/route.gpx"])
                _ = try archive.extract(entry, bufferSize: 64 << 10, skipCRC32: true) { data in
                    received += data.count
                    try consume(data)
                }
            },
            send: { sent.append($0) })
        #expect(outcome == .tooLarge)
        #expect(sent.count == limit + 1, "one byte past the limit tells the daemon it is too large")
        #expect(received <= limit + (64 << 10), "inflated \(received) bytes")

        // Under the limit, the file whole.
        var small = Data()
        let whole = try SideFileReader.read(limit: limit, produce: { consume in try consume(Data(count: 1000)) }, send: { small.append($0) })
        #expect(whole == .complete && small.count == 1000)
    }
}
