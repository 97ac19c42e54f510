import Foundation
import SalusAdmin
import SalusExport
import SalusKit
import SalusModel
import Testing
import ZIPFoundation

/// `salusctl export`'s writing through the admin client in process (`AdminClient.export`): what
/// each format's files hold, to the character where the format is Apple's, their way back in,
/// and that they are private. (Exit codes, the lines on standard error and file modes under the
/// command's umask are checked on the command, in the daemon's `ExportDaemonTests`.)
@Suite("AdminClient: exports")
struct AdminClientExportTests {
    static let fixtures = ImportServiceTests.fixtures
    /// The alxdrcirilo export's dates are at +0200; exported in a zone of that offset they read
    /// as Apple wrote them.
    static let plusTwo = "Etc/GMT-2"

    static func mode(_ path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o777)
    }

    /// Imports `xml` with its side files (paths inside the export's folder) through
    /// salus.v1.Import, as `salusctl import` does; the report.
    static func importExport(_ admin: AdminClient, _ xml: Data, sideFiles: [(String, Data)] = []) async throws -> ImportReport {
        let options = ImportOptions(exportBytes: UInt64(xml.count), sideFiles: UInt64(sideFiles.count))
        let events = try await AdminClientImportTests.events(admin, xml, sideFiles: sideFiles, options: options)
        guard case .report(let report)? = events.last else { throw ExportError("no report: \(events)") }
        return report
    }

    /// export.xml and the side files of an Apple Health zip, by their path inside
    /// `apple_health_export/`.
    static func unzip(_ zip: URL) throws -> (xml: Data, sideFiles: [(String, Data)]) {
        let archive = try Archive(url: zip, accessMode: .read)
        var xml = Data()
        var sideFiles: [(String, Data)] = []
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            let path = String(entry.path.dropFirst("apple_health_export/".count))
            if path == "export.xml" { xml = data } else { sideFiles.append((path, data)) }
        }
        return (xml, sideFiles)
    }

    /// The number of samples of each of `types` the owner reads.
    static func counts(_ admin: AdminClient, _ types: [String]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for type in types { counts[type] = try await SampleQueryDescriptor(type: SampleType(type)).result(for: admin.store).count }
        return counts
    }

    /// The `<Record type="...">` count of each type in `xml`, read with a plain text scan.
    static func recordCounts(_ xml: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for match in xml.matches(of: /<Record type="([^"]+)"/) { counts[String(match.1), default: 0] += 1 }
        return counts
    }

    @Test("an Apple Health zip holds apple_health_export/export.xml with Apple's identifiers, units, case names, device text and dates (yyyy-MM-dd HH:mm:ss ±HHMM in the person's zone), nothing is left beside it, and it imports back once")
    func appleHealthZip() async throws {
        let source = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await source.owner(clientName: "salusctl"))
        let original = try Data(contentsOf: Self.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml"))
        let imported = try await Self.importExport(admin, original)
        #expect(imported.problems.isEmpty, "\(imported.problems)")
        let types = Array(Self.recordCounts(String(decoding: original, as: UTF8.self)).keys)
        let expected = try await Self.counts(admin, types)
        _ = try await admin.setActivitySettings(timeZone: Self.plusTwo)

        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("export.zip")
        let summary = try await admin.export(ExportRequest(format: .appleHealth, output: zip.path))
        #expect(summary.samples == expected.values.reduce(0, +), "\(summary) \(expected)")
        #expect(summary.routes == 0 && summary.typesLeftOut > 0, "\(summary)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["export.zip"], "the staged export.xml is removed")
        let (xml, sideFiles) = try Self.unzip(zip)
        #expect(sideFiles.isEmpty)
        let text = String(decoding: xml, as: UTF8.self)
        #expect(Self.recordCounts(text) == expected, "every sample once as a Record of its HealthKit identifier")
        // The first heart rate as the source export has it, its unit, dates, device and metadata.
        let heart = try #require(text.firstMatch(of: /<Record type="HKQuantityTypeIdentifierHeartRate"[^>]*value="74"[^>]*>/)).0
        #expect(heart.contains(#"unit="count/min""#), "\(heart)")
        #expect(heart.contains(#"startDate="2024-01-01 01:01:36 +0200""#) && heart.contains(#"endDate="2024-01-01 01:01:36 +0200""#), "\(heart)")
        #expect(heart.firstMatch(of: /creationDate="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0200"/) != nil, "the time it was saved here, in the same form: \(heart)")
        #expect(heart.contains(#"sourceName="Alexandre&apos;s Apple Watch""#) || heart.contains(#"sourceName="Alexandre's Apple Watch""#), "\(heart)")
        #expect(heart.contains(#"sourceVersion="10.2""#), "\(heart)")
        #expect(heart.contains("name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;"), "\(heart)")
        #expect(text.contains(#"<MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>"#))
        #expect(text.contains(#"unit="kcal""#) && text.contains(#"type="HKQuantityTypeIdentifierActiveEnergyBurned""#))
        #expect(text.contains(#"value="HKCategoryValueSleepAnalysis"#), "category values as case names")
        #expect(text.firstMatch(of: /<ExportDate value="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0200"\/>/) != nil)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\""), "\(text.prefix(80))")

        let target = try await ServerHarness.start()
        let owner = AdminClient(rpc: try await target.owner(clientName: "salusctl"))
        let first = try await Self.importExport(owner, xml)
        #expect(first.saved == UInt64(expected.values.reduce(0, +)) && first.problems.isEmpty, "\(first)")
        #expect(try await Self.counts(owner, types) == expected)
        let again = try await Self.importExport(owner, xml)
        #expect(again.saved == 0, "\(again)")
        await owner.close()
        await admin.close()
    }

    /// 7,000 step counts saved out of order, each its minute + 1, from 2023-11-14T22:13:20Z on.
    static func sevenThousandSteps(_ server: ServerHarness) async throws {
        let store = try await server.healthStore("org.example.steps")
        let minutes = (0..<7_000).map { ($0 * 4_099) % 7_000 }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for batch in stride(from: 0, to: minutes.count, by: 1_000) {
            let samples: [Sample] = minutes[batch..<batch + 1_000].map { minute in
                let at = start.addingTimeInterval(Double(minute) * 60)
                return .quantity(.stepCount, Quantity(value: Double(minute + 1), unit: .count), start: at, end: at.addingTimeInterval(60))
            }
            _ = try await store.save(samples)
        }
        await store.close()
    }

    @Test("JSON lines and CSV hold each of thousands of samples once, in start order, across the chunks formatted in parallel; times in ISO 8601 in the person's zone")
    func linesInOrder() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        try await Self.sevenThousandSteps(server)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        _ = try await admin.setActivitySettings(timeZone: "Asia/Kolkata")
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonl = directory.appendingPathComponent("steps.jsonl")
        let summary = try await admin.export(ExportRequest(format: .jsonl, output: jsonl.path, types: ["stepCount"]))
        #expect(summary == ExportSummary(samples: 7_000, types: 1, typesLeftOut: 0, routes: 0))
        let lines = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let values = objects.map { (($0["quantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue ?? -1 }
        let expected: [Double] = (1...7_000).map(Double.init)
        #expect(values == expected)
        #expect(objects.first?["startDate"] as? String == "2023-11-15T03:43:20.000+05:30", "\(objects.first ?? [:])")
        #expect(objects.first?["endDate"] as? String == "2023-11-15T03:44:20.000+05:30")
        #expect(objects.first?["type"] as? String == "HKQuantityTypeIdentifierStepCount")
        #expect((objects.first?["uuid"] as? String)?.firstMatch(of: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) != nil)
        #expect(String(lines[0]).hasPrefix(#"{"uuid":""#))

        let folder = directory.appendingPathComponent("csv")
        let csv = try await admin.export(ExportRequest(format: .csv, output: folder.path))
        #expect(csv.samples == 7_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["stepCount.csv"], "a file only for a type with samples")
        let rows = try String(contentsOf: folder.appendingPathComponent("stepCount.csv"), encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "start,end,value,unit,source,source_version,device")
        #expect(rows.dropFirst().first == "2023-11-15T03:43:20.000+05:30,2023-11-15T03:44:20.000+05:30,1.0,count,org.example.steps,,")
        let csvValues: [Double] = rows.dropFirst().map { row in Double(row.split(separator: ",")[2]) ?? -1 }
        #expect(csvValues == expected)
        await admin.close()
    }

    @Test("CSV writes each quantity in the unit it was saved in (bpm, mi, km, kJ) unless the owner chose one; the device is named once; a field with a comma is quoted")
    func csvUnitsAndDevice() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.units", version: "2.1, beta")
        let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,7")
        let phone = Device(manufacturer: "Apple Inc.", model: "Apple iPhone")
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        let bpm = SalusUnit.count.divided(by: .minute)
        let stored = try await store.save([
            .quantity(.heartRate, Quantity(value: 52, unit: bpm), start: start, device: watch),
            .quantity(.distanceWalkingRunning, Quantity(value: 3, unit: .mile), start: start, end: start.addingTimeInterval(1800), device: phone),
            .quantity(.distanceWalkingRunning, Quantity(value: 5, unit: .kilometer), start: start.addingTimeInterval(3600),
                      end: start.addingTimeInterval(5400)),
            .quantity(.activeEnergyBurned, Quantity(value: 418.4, unit: .kilojoule), start: start, end: start.addingTimeInterval(600)),
        ])
        #expect(stored.count == 4)
        await store.close()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        /// The value and unit columns, and the device, of each row of `name`.csv.
        func rows(_ folder: String, _ name: String) throws -> [(value: Double, unit: String, device: String)] {
            let text = try String(contentsOf: directory.appendingPathComponent("\(folder)/\(name).csv"), encoding: .utf8)
            return text.split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return (Double(fields[2]) ?? -1, fields[3], fields.last ?? "")
            }
        }
        _ = try await admin.export(ExportRequest(format: .csv, output: directory.appendingPathComponent("saved").path))
        let heart = try rows("saved", "heartRate")
        #expect(heart.map(\.value) == [52] && heart.map(\.unit) == ["count/min"], "\(heart)")
        #expect(heart.map(\.device) == ["Apple Watch"], "\(heart)")
        let distance = try rows("saved", "distanceWalkingRunning")
        #expect(distance.map(\.value) == [3, 5] && distance.map(\.unit) == ["mi", "km"], "\(distance)")
        #expect(distance.map(\.device) == ["Apple Inc. iPhone", ""], "manufacturer and model, each word once")
        let energy = try rows("saved", "activeEnergyBurned")
        #expect(energy.map(\.value) == [418.4] && energy.map(\.unit) == ["kJ"], "\(energy)")
        let line = try String(contentsOf: directory.appendingPathComponent("saved/heartRate.csv"), encoding: .utf8)
        #expect(line.contains(#",org.example.units,"2.1, beta",Apple Watch"#), "\(line)")

        // A unit the owner chose is used for every row of its type.
        _ = try await admin.setPreferredUnit("km", of: "HKQuantityTypeIdentifierDistanceWalkingRunning")
        _ = try await admin.export(
            ExportRequest(format: .csv, output: directory.appendingPathComponent("chosen").path, types: ["distanceWalkingRunning"]))
        let converted = try rows("chosen", "distanceWalkingRunning")
        #expect(converted.map(\.unit) == ["km", "km"] && abs(converted[0].value - 4.828032) < 1e-9 && converted[1].value == 5, "\(converted)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("chosen").path) == ["distanceWalkingRunning.csv"])
        await admin.close()
    }

    @Test("--app exports only what that app wrote, of the types it wrote; --since and --until bound the samples; an unknown type name or app is refused and writes nothing")
    func selection() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        let one = try await server.healthStore("org.example.one")
        _ = try await one.save((0..<3).map { .quantity(.stepCount, Quantity(value: Double($0 + 1), unit: .count), start: start.addingTimeInterval(Double($0) * 3600)) })
        await one.close()
        let two = try await server.healthStore("org.example.two")
        _ = try await two.save([
            .quantity(.stepCount, Quantity(value: 100, unit: .count), start: start),
            .quantity(.heartRate, Quantity(value: 60, unit: SalusUnit.count.divided(by: .minute)), start: start),
        ])
        await two.close()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mine = directory.appendingPathComponent("one.jsonl")
        let summary = try await admin.export(ExportRequest(format: .jsonl, output: mine.path, app: "org.example.one"))
        #expect(summary.samples == 3 && summary.types == 1, "\(summary)")
        let sources = try String(contentsOf: mine, encoding: .utf8).matches(of: /"appId":"([^"]+)"/).map { String($0.1) }
        #expect(sources == ["org.example.one", "org.example.one", "org.example.one"], "\(sources)")

        let window = try await admin.export(ExportRequest(
            format: .jsonl, output: directory.appendingPathComponent("window.jsonl").path, types: ["stepCount"],
            since: start.addingTimeInterval(1800), until: start.addingTimeInterval(5400)))
        #expect(window.samples == 1, "\(window)")

        let refused = directory.appendingPathComponent("refused.jsonl")
        await #expect(throws: SalusError.self) { _ = try await admin.export(ExportRequest(format: .jsonl, output: refused.path, types: ["noSuchType"])) }
        await #expect(throws: SalusError.self) { _ = try await admin.export(ExportRequest(format: .jsonl, output: refused.path, app: "org.example.none")) }
        #expect(!FileManager.default.fileExists(atPath: refused.path))
        await #expect(throws: ExportError("missing; expected a folder for the CSV files (one per type)")) {
            _ = try await admin.export(ExportRequest(format: .csv))
        }
        await admin.close()
    }

    @Test("FHIR: one R4 Bundle of Observations with LOINC codes, UCUM units and times in the person's zone; types with no Observation form are left out and counted")
    func fhirBundle() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let original = try Data(contentsOf: Self.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml"))
        _ = try await Self.importExport(admin, original)
        _ = try await admin.setActivitySettings(timeZone: Self.plusTwo)
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("health.fhir.json")
        let summary = try await admin.export(ExportRequest(format: .fhir, output: file.path, types: ["heartRate", "workout"]))
        #expect(summary == ExportSummary(samples: 2, types: 1, typesLeftOut: 1, routes: 0), "\(summary)")
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(bundle["resourceType"] as? String == "Bundle" && bundle["type"] as? String == "collection")
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        #expect(resources.count == 2 && resources.allSatisfy { $0["resourceType"] as? String == "Observation" })
        let first = try #require(resources.first)
        let coding = ((first["code"] as? [String: Any])?["coding"] as? [[String: Any]]) ?? []
        #expect(coding.contains { $0["system"] as? String == "http://loinc.org" && $0["code"] as? String == "8867-4" }, "\(coding)")
        let quantity = first["valueQuantity"] as? [String: Any]
        #expect(quantity?["value"] as? NSNumber == 74 && quantity?["code"] as? String == "/min", "\(quantity ?? [:])")
        #expect(first["effectiveDateTime"] as? String == "2024-01-01T01:01:36.000+02:00", "an instant, in the person's zone: \(first)")
        await admin.close()
    }

    @Test("clinical records go out with their FHIR files and electrocardiograms as CSV files, and come back equal")
    func appleHealthSideFiles() async throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="imm-1" sourceName="Mercy Clinic" sourceURL="https://fhir.example.org/r4" fhirVersion="4.0.1" receivedDate="2026-02-02 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-1.json"/>
            </HealthData>
            """
        let fhir = Data(#"{"resourceType":"Immunization","id":"1","status":"completed","vaccineCode":{"text":"Influenza"}}"#.utf8)
        let ecg = (["Name,Test", "Recorded Date,2026-02-10 07:15:00 -0500", "Classification,Atrial Fibrillation", "Symptoms,None",
                    "Software Version,1.90", "Device,\"Watch6,7\"", "Sample Rate,512 hertz", "Lead,Lead I", "Unit,µV", ""]
            + (0..<2048).map { String(format: "%.3f", Double($0 % 97) * 1.5 - 40) }).joined(separator: "\n")
        let source = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await source.owner(clientName: "salusctl"))
        let imported = try await Self.importExport(
            admin, Data(xml.utf8),
            sideFiles: [("clinical-records/Immunization-1.json", fhir), ("electrocardiograms/ecg_2026-02-10.csv", Data(ecg.utf8))])
        try #require(imported.saved == 2 && imported.problems.isEmpty, "\(imported)")
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("export.zip")
        let summary = try await admin.export(ExportRequest(format: .appleHealth, output: zip.path))
        #expect(summary.samples == 2, "\(summary)")
        let (exported, sideFiles) = try Self.unzip(zip)
        #expect(sideFiles.map(\.0).contains("clinical-records/Immunization-1.json"))
        #expect(sideFiles.first { $0.0 == "clinical-records/Immunization-1.json" }?.1 == fhir, "the resource as it was")
        #expect(sideFiles.contains { $0.0.hasPrefix("electrocardiograms/ecg_2026-02-10_") && $0.0.hasSuffix(".csv") }, "\(sideFiles.map(\.0))")
        #expect(String(decoding: exported, as: UTF8.self).contains(#"resourceFilePath="/clinical-records/Immunization-1.json""#))

        let target = try await ServerHarness.start()
        let owner = AdminClient(rpc: try await target.owner(clientName: "salusctl"))
        let back = try await Self.importExport(owner, exported, sideFiles: sideFiles)
        #expect(back.saved == 2 && back.problems.isEmpty, "\(back)")
        func read(_ admin: AdminClient) async throws -> (record: ClinicalRecord?, ecg: Sample?, voltages: [ElectrocardiogramVoltage]) {
            let records = try await SampleQueryDescriptor(type: SampleType("HKClinicalTypeIdentifierImmunizationRecord")).result(for: admin.store)
            let ecgs = try await SampleQueryDescriptor(type: .electrocardiogram).result(for: admin.store)
            guard case .clinicalRecord(let record)? = records.first?.value, let ecg = ecgs.first else { return (nil, nil, []) }
            return (record, ecg, try await ElectrocardiogramQueryDescriptor(ecg).result(for: admin.store))
        }
        let (a, b) = (try await read(admin), try await read(owner))
        #expect(a.record != nil && a.record?.fhirData == b.record?.fhirData && a.record?.sourceURL == b.record?.sourceURL)
        #expect(a.record?.receivedDate == b.record?.receivedDate && a.record?.resourceType == "Immunization")
        #expect(a.ecg?.startDate == b.ecg?.startDate && a.ecg?.endDate == b.ecg?.endDate && a.ecg?.device?.name == b.ecg?.device?.name)
        #expect(a.voltages.count == 2048 && a.voltages.map(\.microvolts) == b.voltages.map(\.microvolts))
        if case .electrocardiogram(let x)? = a.ecg?.value, case .electrocardiogram(let y)? = b.ecg?.value {
            #expect(x.classification == .atrialFibrillation && x.classification == y.classification && x.symptomsStatus == y.symptomsStatus)
        } else {
            Issue.record("no electrocardiogram: \(String(describing: a.ecg)) \(String(describing: b.ecg))")
        }
        await owner.close()
        await admin.close()
    }

    @Test("a workout's route goes out as workout-routes/*.gpx named by its Workout, and comes back with the same locations")
    func appleHealthRoutes() async throws {
        let folder = Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export")
        let route = "workout-routes/route_2019-06-11_3.00pm.gpx"
        let source = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await source.owner(clientName: "salusctl"))
        let imported = try await Self.importExport(
            admin, try Data(contentsOf: folder.appendingPathComponent("export.xml")),
            sideFiles: [(route, try Data(contentsOf: folder.appendingPathComponent(route)))])
        try #require(imported.problems.isEmpty, "\(imported)")
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("export.zip")
        let summary = try await admin.export(ExportRequest(format: .appleHealth, output: zip.path))
        #expect(summary.routes == 1, "\(summary)")
        let (xml, sideFiles) = try Self.unzip(zip)
        let gpx = try #require(sideFiles.first { $0.0.hasPrefix("workout-routes/route_") && $0.0.hasSuffix(".gpx") }, "\(sideFiles.map(\.0))")
        #expect(String(decoding: xml, as: UTF8.self).contains(#"<FileReference path="/\#(gpx.0)"/>"#), "the Workout names its route's file")

        let target = try await ServerHarness.start()
        let owner = AdminClient(rpc: try await target.owner(clientName: "salusctl"))
        let back = try await Self.importExport(owner, xml, sideFiles: sideFiles)
        #expect(back.problems.isEmpty, "\(back)")
        func locations(_ admin: AdminClient) async throws -> [RouteLocation] {
            let routes = try await SampleQueryDescriptor(type: .workoutRoute).result(for: admin.store)
            try #require(routes.count == 1)
            return try await admin.store.routeLocations(of: routes[0].uuid).collect()
        }
        let original = try await locations(admin)
        let returned = try await locations(owner)
        #expect(original.count == 3 && returned.count == original.count)
        for index in original.indices where index < returned.count {
            let (a, b) = (original[index], returned[index])
            #expect(a.timestamp == b.timestamp)
            #expect(a.latitude == b.latitude && a.longitude == b.longitude)
            #expect(a.altitude == b.altitude && a.speed == b.speed)
            #expect(a.course == b.course && a.horizontalAccuracy == b.horizontalAccuracy)
        }
        await owner.close()
        await admin.close()
    }

    @Test("every format writes files of mode 0600 (folders 0700), also over an existing file others may read, never through a link planted at the old staging name, and leaves nothing staged")
    func privateFiles() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.steps")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await store.save((0..<5).map { .quantity(.stepCount, Quantity(value: Double($0 + 1), unit: .count), start: start.addingTimeInterval(Double($0) * 60)) })
        await store.close()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let directory = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonl = directory.appendingPathComponent("steps.jsonl").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: jsonl))
        chmod(jsonl, 0o644)
        let fhir = directory.appendingPathComponent("steps.json").path
        let csv = directory.appendingPathComponent("csv").path
        let zip = directory.appendingPathComponent("export.zip").path
        let victim = directory.appendingPathComponent("victim").path
        try Data("the victim's".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(".export.zip.export.xml").path, withDestinationPath: victim)
        for format in ExportFormat.allCases {
            let output = switch format { case .jsonl: jsonl; case .fhir: fhir; case .csv: csv; case .appleHealth: zip }
            let summary = try await admin.export(ExportRequest(format: format, output: output))
            #expect(summary.samples == 5, "\(format): \(summary)")
        }
        #expect(Self.mode(jsonl) == 0o600)
        #expect(try String(contentsOfFile: jsonl, encoding: .utf8).contains("HKQuantityTypeIdentifierStepCount"))
        #expect(Self.mode(fhir) == 0o600)
        #expect(Self.mode(csv) == 0o700)
        #expect(Self.mode(csv + "/stepCount.csv") == 0o600)
        #expect(Self.mode(zip) == 0o600)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "the victim's")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == [".export.zip.export.xml", "csv", "export.zip", "steps.json", "steps.jsonl", "victim"], "\(left)")
        // A zip in a folder that does not exist: refused as the output, naming the folder.
        let missing = directory.appendingPathComponent("missing/export.zip").path
        let error = await #expect(throws: ExportError.self) { _ = try await admin.export(ExportRequest(format: .appleHealth, output: missing)) }
        #expect(error?.description.contains(directory.appendingPathComponent("missing").path) == true, "\(String(describing: error))")
        await admin.close()
    }
}
