import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import Testing

/// `salusctl export` in the formats other tools read, against running daemons: what the zip holds
/// and its way back in go through the command line and the files, as a person would use them.
@Suite("salusctl export on a running daemon")
struct ExportDaemonTests {
    @Test("--format apple-health writes apple_health_export/export.xml in a zip that salusctl import reads back, once")
    func appleHealthZip() async throws {
        let source = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let fixture = ImportDaemonTests.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.zip")
        let imported = try await StatisticsDaemonTests.salusctl(source, ["import", fixture.path])
        try #require(imported.status == 0, "\(imported.output)")
        let types = Array(try ImportDaemonTests.recordCounts(
            ImportDaemonTests.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml")).keys)
        let expected = try await ImportResumeTests.counts(source, types: types)

        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        let zip = directory.appendingPathComponent("export.zip")
        let exported = try await StatisticsDaemonTests.salusctl(source, ["export", "--format", "apple-health", "--output", zip.path])
        #expect(exported.status == 0 && exported.output.contains("exported \(expected.values.reduce(0, +)) samples"), "\(exported.output)")
        let listing = try String(contentsOf: zip, encoding: .isoLatin1)
        #expect(listing.contains("apple_health_export/export.xml"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["export.zip"], "the staged export.xml is removed")

        let target = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let first = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(first.status == 0 && first.output.contains("\(expected.values.reduce(0, +)) samples saved"), "\(first.output)")
        #expect(try await ImportResumeTests.counts(target, types: types) == expected)
        let again = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(again.status == 0 && again.output.contains("0 samples saved"), "\(again.output)")
        _ = try await target.stop()
        _ = try await source.stop()
    }

    @Test("JSON lines and CSV hold each of thousands of samples once, in start order, across the chunks formatted in parallel")
    func linesInOrder() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let app = try await DaemonClients.app(daemon, "org.example.steps")
        // 7,000 steps saved out of order (the export sorts by start), each count its minute + 1.
        let minutes = (0..<7_000).map { ($0 * 4_099) % 7_000 }
        for batch in stride(from: 0, to: minutes.count, by: 1_000) {
            let samples = minutes[batch..<batch + 1_000].map {
                DaemonClients.stepSample(Double($0 + 1), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000)
            }
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest(samples))
        }
        await app.close()
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        let jsonl = directory.appendingPathComponent("steps.jsonl")
        let exported = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "jsonl", "--output", jsonl.path])
        #expect(exported.status == 0 && exported.output.contains("exported 7000 samples"), "\(exported.output)")
        let values = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n").map { line -> Double in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return ((object?["quantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue ?? -1
        }
        let expected: [Double] = (1...7_000).map(Double.init)
        #expect(values == expected)

        let folder = directory.appendingPathComponent("csv")
        let csv = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "csv", "--output", folder.path])
        #expect(csv.status == 0, "\(csv.output)")
        let rows = try String(contentsOf: folder.appendingPathComponent("stepCount.csv"), encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "start,end,value,unit,source,source_version,device")
        let csvValues: [Double] = rows.dropFirst().map { row in Double(row.split(separator: ",")[2]) ?? -1 }
        #expect(csvValues == expected)
        _ = try await daemon.stop()
    }

    @Test("CSV writes each quantity in the unit it was saved in (bpm, mi, km, kJ) unless the owner chose one; the device is named once")
    func csvUnitsAndDevice() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, "org.example.units")
        let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,7")
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        let bpm = SalusUnit.count.divided(by: .minute)
        let stored = try await store.save([
            .quantity(.heartRate, Quantity(value: 52, unit: bpm), start: start, device: watch),
            .quantity(.distanceWalkingRunning, Quantity(value: 3, unit: .mile), start: start, end: start.addingTimeInterval(1800)),
            .quantity(.distanceWalkingRunning, Quantity(value: 5, unit: .kilometer), start: start.addingTimeInterval(3600),
                      end: start.addingTimeInterval(5400)),
            .quantity(.activeEnergyBurned, Quantity(value: 418.4, unit: .kilojoule), start: start, end: start.addingTimeInterval(600)),
        ])
        #expect(stored.count == 4)
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        /// The value and unit columns, and the device, of each row of `name`.csv.
        func rows(_ folder: String, _ name: String) throws -> [(value: Double, unit: String, device: String)] {
            let text = try String(contentsOf: directory.appendingPathComponent("\(folder)/\(name).csv"), encoding: .utf8)
            return text.split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return (Double(fields[2]) ?? -1, fields[3], fields.last ?? "")
            }
        }
        let saved = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "csv", "--output", directory.appendingPathComponent("saved").path])
        #expect(saved.status == 0, "\(saved.output)")
        let heart = try rows("saved", "heartRate")
        #expect(heart.map(\.value) == [52] && heart.map(\.unit) == ["count/min"], "\(heart)")
        #expect(heart.map(\.device) == ["Apple Watch"], "\(heart)")
        let distance = try rows("saved", "distanceWalkingRunning")
        #expect(distance.map(\.value) == [3, 5] && distance.map(\.unit) == ["mi", "km"], "\(distance)")
        let energy = try rows("saved", "activeEnergyBurned")
        #expect(energy.map(\.value) == [418.4] && energy.map(\.unit) == ["kJ"], "\(energy)")

        // A unit the owner chose is used for every row of its type.
        #expect(try await StatisticsDaemonTests.salusctl(daemon, ["units", "set", "distanceWalkingRunning", "km"]).status == 0)
        let chosen = try await StatisticsDaemonTests.salusctl(
            daemon, ["export", "--format", "csv", "--output", directory.appendingPathComponent("chosen").path, "--types", "distanceWalkingRunning"])
        #expect(chosen.status == 0, "\(chosen.output)")
        let converted = try rows("chosen", "distanceWalkingRunning")
        #expect(converted.map(\.unit) == ["km", "km"] && abs(converted[0].value - 4.828032) < 1e-9 && converted[1].value == 5, "\(converted)")
        _ = try await daemon.stop()
    }

    @Test("clinical records go out with their FHIR files and electrocardiograms as CSV files, and come back equal")
    func appleHealthSideFiles() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export-side")
        let folder = directory.appendingPathComponent("in/apple_health_export")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("clinical-records"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("electrocardiograms"), withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="imm-1" sourceName="Mercy Clinic" sourceURL="https://fhir.example.org/r4" fhirVersion="4.0.1" receivedDate="2026-02-02 10:00:00 -0500" resourceFilePath="/clinical-records/Immunization-1.json"/>
            </HealthData>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("export.xml"))
        let fhir = Data(#"{"resourceType":"Immunization","id":"1","status":"completed","vaccineCode":{"text":"Influenza"}}"#.utf8)
        try fhir.write(to: folder.appendingPathComponent("clinical-records/Immunization-1.json"))
        let ecg = (["Name,Test", "Recorded Date,2026-02-10 07:15:00 -0500", "Classification,Atrial Fibrillation", "Symptoms,None",
                    "Software Version,1.90", "Device,\"Watch6,7\"", "Sample Rate,512 hertz", "Lead,Lead I", "Unit,µV", ""]
            + (0..<2048).map { String(format: "%.3f", Double($0 % 97) * 1.5 - 40) }).joined(separator: "\n")
        try Data(ecg.utf8).write(to: folder.appendingPathComponent("electrocardiograms/ecg_2026-02-10.csv"))

        let source = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let imported = try await StatisticsDaemonTests.salusctl(source, ["import", folder.path])
        try #require(imported.status == 0 && imported.output.contains("2 samples saved") && !imported.output.contains("problems"), "\(imported.output)")
        let zip = directory.appendingPathComponent("export.zip")
        let exported = try await StatisticsDaemonTests.salusctl(source, ["export", "--format", "apple-health", "--output", zip.path])
        #expect(exported.status == 0, "\(exported.output)")
        let listing = try String(contentsOf: zip, encoding: .isoLatin1)
        #expect(listing.contains("apple_health_export/clinical-records/Immunization-1.json") && listing.contains("apple_health_export/electrocardiograms/ecg_2026-02-10_"))

        let target = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let back = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(back.status == 0 && back.output.contains("2 samples saved") && !back.output.contains("problems"), "\(back.output)")
        func read(_ daemon: DaemonHarness) async throws -> (record: ClinicalRecord?, ecg: Sample?, voltages: [ElectrocardiogramVoltage]) {
            let owner = HealthStore(client: try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath))
            defer { Task { await owner.close() } }
            let records = try await SampleQueryDescriptor(type: SampleType("HKClinicalTypeIdentifierImmunizationRecord")).result(for: owner)
            let ecgs = try await SampleQueryDescriptor(type: .electrocardiogram).result(for: owner)
            guard case .clinicalRecord(let record)? = records.first?.value, let ecg = ecgs.first else { return (nil, nil, []) }
            return (record, ecg, try await ElectrocardiogramQueryDescriptor(ecg).result(for: owner))
        }
        let (a, b) = (try await read(source), try await read(target))
        #expect(a.record != nil && a.record?.fhirData == b.record?.fhirData && a.record?.sourceURL == b.record?.sourceURL)
        #expect(a.record?.receivedDate == b.record?.receivedDate && a.record?.resourceType == "Immunization")
        #expect(a.ecg?.startDate == b.ecg?.startDate && a.ecg?.endDate == b.ecg?.endDate && a.ecg?.device?.name == b.ecg?.device?.name)
        #expect(a.voltages.count == 2048 && a.voltages.map(\.microvolts) == b.voltages.map(\.microvolts))
        if case .electrocardiogram(let x)? = a.ecg?.value, case .electrocardiogram(let y)? = b.ecg?.value {
            #expect(x.classification == .atrialFibrillation && x.classification == y.classification && x.symptomsStatus == y.symptomsStatus)
        } else {
            Issue.record("no electrocardiogram: \(String(describing: a.ecg)) \(String(describing: b.ecg))")
        }
        _ = try await target.stop()
        _ = try await source.stop()
    }

    @Test("a workout's route goes out as workout-routes/*.gpx named by its Workout, and comes back with the same locations")
    func appleHealthRoutes() async throws {
        let source = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let folder = ImportDaemonTests.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents")
        let imported = try await StatisticsDaemonTests.salusctl(source, ["import", folder.path])
        try #require(imported.status == 0, "\(imported.output)")
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export-routes")
        let zip = directory.appendingPathComponent("export.zip")
        let exported = try await StatisticsDaemonTests.salusctl(source, ["export", "--format", "apple-health", "--output", zip.path])
        #expect(exported.status == 0 && exported.output.contains("with 1 routes"), "\(exported.output)")
        #expect(try String(contentsOf: zip, encoding: .isoLatin1).contains("apple_health_export/workout-routes/route_"))

        let target = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let back = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(back.status == 0 && !back.output.contains("problems"), "\(back.output)")
        func locations(_ daemon: DaemonHarness) async throws -> [RouteLocation] {
            let owner = HealthStore(client: try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath))
            defer { Task { await owner.close() } }
            let routes = try await SampleQueryDescriptor(type: .workoutRoute).result(for: owner)
            try #require(routes.count == 1)
            return try await owner.routeLocations(of: routes[0].uuid).collect()
        }
        let original = try await locations(source)
        let returned = try await locations(target)
        #expect(original.count == 3 && returned.count == original.count)
        for index in original.indices where index < returned.count {
            let (a, b) = (original[index], returned[index])
            #expect(a.timestamp == b.timestamp)
            #expect(a.latitude == b.latitude && a.longitude == b.longitude)
            #expect(a.altitude == b.altitude && a.speed == b.speed)
            #expect(a.course == b.course && a.horizontalAccuracy == b.horizontalAccuracy)
        }
        _ = try await target.stop()
        _ = try await source.stop()
    }
}
