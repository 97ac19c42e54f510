import Foundation
import SalusTestSupport
import SalusProto
import SalusRPC
import SalusImport
import Testing
import ZIPFoundation

/// `salusctl import` against a running daemon: the zip (with its __MACOSX entries), the unpacked
/// folder and the bare file, per-type counts derived independently of the importer.
@Suite("salusctl import on a running daemon")
struct ImportDaemonTests {
    static let fixtures = DaemonHarness.packageRoot.appendingPathComponent("Tests/Fixtures/apple-health")

    /// The number of `<Record type="...">` per type, read with a plain text scan, not the importer.
    static func recordCounts(_ file: URL) throws -> [String: Int] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var counts: [String: Int] = [:]
        var rest = Substring(text)
        while let start = rest.range(of: "<Record") {
            rest = rest[start.upperBound...]
            guard let typeStart = rest.range(of: "type=\"") else { break }
            let after = rest[typeStart.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            counts[String(after[..<end]), default: 0] += 1
        }
        return counts
    }

    @Test("a zip's workout-routes GPX becomes its workout's route, as many locations as the file's trkpts")
    func zippedRoute() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let ctl = { (arguments: [String]) in try await StatisticsDaemonTests.salusctl(daemon, arguments) }
        let folder = Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export")
        let gpx = try String(
            contentsOf: folder.appendingPathComponent("workout-routes/route_2019-06-11_3.00pm.gpx"), encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "zipped-route")
        // The real folder, with an electrocardiogram and the CDA rendering beside export.xml.
        let export = directory.appendingPathComponent("apple_health_export")
        try FileManager.default.copyItem(at: folder, to: export)
        try FileManager.default.createDirectory(at: export.appendingPathComponent("electrocardiograms"), withIntermediateDirectories: true)
        let ecg = (["Name,Test", "Recorded Date,2019-06-12 08:00:00 -0700", "Classification,Sinus Rhythm", "Sample Rate,512 hertz", "Unit,µV", ""]
            + (0..<1024).map { "\($0 % 50 - 25),5" }).joined(separator: "\n")
        try Data(ecg.utf8).write(to: export.appendingPathComponent("electrocardiograms/ecg_2019-06-12.csv"))
        try Data("<ClinicalDocument xmlns=\"urn:hl7-org:v3\"/>".utf8).write(to: export.appendingPathComponent("export_cda.xml"))
        let zip = directory.appendingPathComponent("export.zip")
        try FileManager.default.zipItem(at: export, to: zip)

        let run = try await ctl(["import", zip.path])
        #expect(run.status == 0 && run.output.contains("Workout: 1\n") && !run.output.contains("problems"), "\(run.output)")
        #expect(run.output.contains("electrocardiograms/*.csv: 1\n") && run.output.contains("export_cda.xml: 1 (not imported"), "\(run.output)")
        let routes = try await ctl(["samples", "HKWorkoutRouteTypeIdentifier"])
        #expect(routes.output.contains(", \(points) locations") && points == 3, "\(routes.output)")
        let recordings = try await ctl(["samples", "HKDataTypeIdentifierElectrocardiogram", "--json"])
        #expect(recordings.output.contains("ECG sinusRhythm, 1024 voltages"), "\(recordings.output)")
        let again = try await ctl(["import", zip.path])
        #expect(again.output.contains("0 samples saved"), "\(again.output)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("the zip, twice: every record once, the second run adds nothing; --json and --dry-run; a folder and a bare file")
    func zipFolderAndFile() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let ctl = { (arguments: [String]) in try await StatisticsDaemonTests.salusctl(daemon, arguments) }
        let zip = Self.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.zip")
        let expected = try Self.recordCounts(Self.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml"))

        let dry = try await ctl(["import", zip.path, "--dry-run"])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("Checked"), "\(dry.output)")

        let first = try await ctl(["import", zip.path, "--json"])
        #expect(first.status == 0, "\(first.output)")
        // One salus.v1.ImportEvent a line: progress as the daemon processes, the report last.
        let events = try first.output.split(separator: "\n").filter { $0.hasPrefix("{") }.map { try Salus_V1_ImportEvent(jsonString: String($0)) }
        let report = try #require(events.last?.report, "\(first.output)")
        let progress = events.compactMap { event -> Salus_V1_ImportProgress? in
            if case .progress(let step)? = event.event { return step }
            return nil
        }
        #expect(progress.last?.done == true && progress.last?.recordsProcessed == report.elements.values.reduce(0, +), "\(first.output)")
        #expect(progress.last?.bytesTotal == report.bytesRead, "\(first.output)")
        #expect(report.saved == UInt64(expected.values.reduce(0, +)), "\(report)")
        #expect(report.elements["Record"] == UInt64(expected.values.reduce(0, +)))
        #expect(try await ImportResumeTests.counts(daemon, types: Array(expected.keys)) == expected)
        let second = try await ctl(["import", zip.path])
        #expect(second.status == 0 && second.output.contains("0 samples saved, \(report.saved) already there"), "\(second.output)")

        // Out again: JSON lines, one per sample, and CSV in the preferred unit; times in the
        // person's zone.
        #expect(try await ctl(["summary", "goals", "--time-zone", "Asia/Kolkata"]).status == 0)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        let lines = directory.appendingPathComponent("all.jsonl")
        let exported = try await ctl(["export", "--format", "jsonl", "--output", lines.path])
        #expect(exported.status == 0 && exported.output.contains("exported \(report.saved) samples"), "\(exported.output)")
        try #require(exported.status == 0, "\(exported.output)")
        let objects = try String(contentsOf: lines, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        #expect(objects.count == Int(report.saved))
        // The same store exports to the same bytes: metadata keys in a fixed order.
        let again = directory.appendingPathComponent("again.jsonl")
        let repeated = try await ctl(["export", "--format", "jsonl", "--output", again.path])
        try #require(repeated.status == 0, "\(repeated.output)")
        #expect(try Data(contentsOf: again) == Data(contentsOf: lines), "two exports of one store differ")
        let heartLine = try #require(objects.first { $0["type"] as? String == "HKQuantityTypeIdentifierHeartRate" })
        // The first heart rate was recorded at 2024-01-01 01:01:36 +0200.
        let earliest = try #require(objects.first {
            $0["type"] as? String == "HKQuantityTypeIdentifierHeartRate"
                && ($0["quantity"] as? [String: Any])?["value"] as? NSNumber == 74
        })
        #expect(earliest["startDate"] as? String == "2024-01-01T04:31:36.000+05:30", "\(earliest)")
        #expect(earliest["endDate"] as? String == "2024-01-01T04:31:36.000+05:30", "\(earliest)")
        // Created when it was imported, in the same form.
        let created = try #require(earliest["creationDate"] as? String)
        #expect(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30/) != nil, "\(created)")
        #expect((heartLine["uuid"] as? String).flatMap(UUID.init(uuidString:)) != nil && heartLine["creationDate"] is String)
        #expect([74.0, 75.0].contains(((heartLine["quantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue ?? 0), "\(heartLine)")
        #expect((heartLine["sourceRevision"] as? [String: Any])?["appId"] as? String == "applehealth.alexandres-apple-watch")
        #expect(try await ctl(["units", "set", "heartRate", "count/s"]).status == 0)
        let csv = try await ctl(["export", "--format", "csv", "--output", directory.appendingPathComponent("csv").path, "--types", "heartRate"])
        #expect(csv.status == 0, "\(csv.output)")
        let rows = try String(contentsOf: directory.appendingPathComponent("csv/heartRate.csv"), encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 3 && rows[0].hasPrefix("start,end,value,unit"))
        #expect(rows.contains { $0.hasPrefix("2024-01-01T04:31:36.000+05:30,2024-01-01T04:31:36.000+05:30,") }, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.contains(",count/s,applehealth.alexandres-apple-watch,") }, "\(rows)")
        #expect(rows.contains { $0.contains(",\(74.0 / 60),count/s,") }, "\(rows)")

        let folder = try await ctl(["import", Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents").path])
        #expect(folder.status == 0 && folder.output.contains("Workout: 1\n") && !folder.output.contains("problems"), "\(folder.output)")
        // Its route comes from the folder's GPX: as many locations as the file has trkpts.
        let gpx = try String(
            contentsOf: Self.fixtures.appendingPathComponent(
                "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx"),
            encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        let routes = try await ctl(["samples", "HKWorkoutRouteTypeIdentifier"])
        #expect(routes.output.contains(", \(points) locations"), "\(routes.output)")
        // The other names export.xml has had, in an unpacked folder.
        for name in ["Export.xml", "导出.xml"] {
            let renamed = try DaemonHarness.makeTemporaryDirectory(prefix: "renamed")
            try FileManager.default.createDirectory(at: renamed.appendingPathComponent("apple_health_export"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Self.fixtures.appendingPathComponent("tdda-applehealthdata/export6s3sample.xml"),
                to: renamed.appendingPathComponent("apple_health_export/\(name)"))
            let run = try await ctl(["import", renamed.path])
            #expect(run.status == 0 && run.output.contains("Record: 15"), "\(name): \(run.output)")
        }
        let tdda = try Self.recordCounts(Self.fixtures.appendingPathComponent("tdda-applehealthdata/export6s3sample.xml"))
        #expect(try await ImportResumeTests.counts(daemon, types: Array(tdda.keys)) == tdda, "the iPhone 6s export")
        let missing = try await ctl(["import", "/nonexistent/export.zip"])
        #expect(missing.status != 0 && missing.output.contains("does not exist"), "\(missing.output)")
        // A file that is not an export is named as given, and said not to be one, before a byte
        // is sent (it was "data: export.xml line 1 is not valid; ... Document is empty").
        let readme = DaemonHarness.packageRoot.appendingPathComponent("README.md").path
        let notExport = try await ctl(["import", readme])
        #expect(notExport.status != 0, "\(notExport.output)")
        #expect(notExport.output.contains("PATH: \(readme) is not an Apple Health export: it is not XML (it starts with \"# Salus"), "\(notExport.output)")
        #expect(notExport.output.contains("expected Apple Health's export.zip") && !notExport.output.contains("export.xml line"), "\(notExport.output)")
        let otherXML = try DaemonHarness.makeTemporaryDirectory(prefix: "other-xml").appendingPathComponent("feed.xml")
        try Data("<?xml version=\"1.0\"?>\n<rss><channel/></rss>\n".utf8).write(to: otherXML)
        let rss = try await ctl(["import", otherXML.path])
        #expect(rss.status != 0 && rss.output.contains("PATH: \(otherXML.path) is XML but not an Apple Health export: it has no <HealthData> element"), "\(rss.output)")
        let empty = otherXML.deletingLastPathComponent().appendingPathComponent("export.xml")
        try Data().write(to: empty)
        let nothing = try await ctl(["import", empty.path])
        #expect(nothing.status != 0 && nothing.output.contains("PATH: \(empty.path) is empty, not an Apple Health export"), "\(nothing.output)")
        #expect(try await daemon.stop() == 0)
    }
}

/// An import killed mid-way and run again: the same samples as a clean import, none twice.
@Suite("salusctl import, killed and resumed")
struct ImportResumeTests {
    /// Per-type sample counts, read by the owner.
    static func counts(_ daemon: DaemonHarness, types: [String]) async throws -> [String: Int] {
        let owner = try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath)
        var counts: [String: Int] = [:]
        for type in types {
            var request = Salus_V1_SampleQueryRequest()
            request.type = type
            for try await batch in try owner.serverStreaming(SalusMethods.Store.querySamples, request: request) {
                counts[type, default: 0] += batch.samples.count
            }
        }
        await owner.close()
        return counts
    }

    static let types = [
        "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierActiveEnergyBurned",
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "HKCategoryTypeIdentifierSleepAnalysis",
        "HKQuantityTypeIdentifierBloodPressureSystolic", "HKCorrelationTypeIdentifierBloodPressure", "HKWorkoutTypeIdentifier",
        "HKWorkoutRouteTypeIdentifier",
    ]

    @Test("kill -9 of the daemon during an import, then the import again: counts equal a clean import")
    func killAndResume() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "resume")
        let file = directory.appendingPathComponent("export.xml")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        SyntheticExport.write(records: 6_000) { handle.write(Data($0.utf8)) }
        try handle.close()

        let clean = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let cleanRun = try await StatisticsDaemonTests.salusctl(clean, ["import", file.path])
        #expect(cleanRun.status == 0, "\(cleanRun.output)")
        let expected = try await Self.counts(clean, types: Self.types)
        #expect(try await clean.stop() == 0)
        #expect((expected["HKQuantityTypeIdentifierStepCount"] ?? 0) > 2000)
        #expect(expected["HKCorrelationTypeIdentifierBloodPressure"] == expected["HKQuantityTypeIdentifierBloodPressureSystolic"])
        #expect((expected["HKWorkoutTypeIdentifier"] ?? 0) >= 1 && expected["HKWorkoutRouteTypeIdentifier"] == expected["HKWorkoutTypeIdentifier"])

        // The first import gets only the first 60% of the file, as salusctl sends it, so the kill
        // comes after some batches and before the end, however fast the daemon is.
        let first = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let bytes = try Data(contentsOf: file)
        let importer = try await RPCClient.connect(unixSocketPath: first.adminSocketPath)
        var partial = 0
        _ = try? await importer.clientStreaming(SalusMethods.Import.importAppleHealth) {
            writer in
            var offset = 0
            while offset < bytes.count * 6 / 10 {
                let end = min(offset + 64 * 1024, bytes.count)
                var chunk = Salus_V1_ImportChunk()
                if offset == 0 { chunk.options = Salus_V1_ImportOptions() }
                chunk.data = bytes.subdata(in: offset..<end)
                try await writer.write(chunk)
                offset = end
            }
            for _ in 0..<2000 where partial == 0 {
                partial = (try? await Self.counts(first, types: ["HKQuantityTypeIdentifierStepCount"]))?["HKQuantityTypeIdentifierStepCount"] ?? 0
                if partial == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            first.process.send(SIGKILL)
            first.process.waitUntilExit()
        }
        await importer.close()
        #expect(partial > 0)

        let second = try await DaemonHarness.start(
            arguments: ["--dev", "--data-dir", first.dataDirectory.path], bundledPlugins: true)
        let after = try await Self.counts(second, types: ["HKQuantityTypeIdentifierStepCount"])
        #expect((after["HKQuantityTypeIdentifierStepCount"] ?? 0) >= partial)
        #expect((after["HKQuantityTypeIdentifierStepCount"] ?? 0) < (expected["HKQuantityTypeIdentifierStepCount"] ?? 0), "killed before the end")
        let again = try await StatisticsDaemonTests.salusctl(second, ["import", file.path])
        #expect(again.status == 0, "\(again.output)")
        #expect(try await Self.counts(second, types: Self.types) == expected)
        #expect(try await second.stop() == 0)
    }
}
