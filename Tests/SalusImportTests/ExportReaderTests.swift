import Foundation
import Logging
import SalusImport
import SalusModel
import SalusPluginHost
import Testing

/// The export.xml reader and the record mapping, on third-party exports
/// (Tests/Fixtures/apple-health, from healthkit-to-sqlite, apple-health-parser and
/// applehealthdata) and on the bundled plugins' catalogue.
@Suite("Apple Health export reading")
struct ExportReaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apple-health")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(path))
    }

    /// Reads `data` in chunks of `chunk` bytes; the top-level elements in order.
    static func read(_ data: Data, chunk: Int = 1 << 16) throws -> (elements: [ExportElement], reader: ExportXMLReader) {
        var elements: [ExportElement] = []
        let reader = ExportXMLReader { elements.append($0) }
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            try reader.feed(data.subdata(in: offset..<end))
            offset = end
        }
        try reader.finish()
        return (elements, reader)
    }

    /// The catalogue of the bundled plugins, loaded as the daemon loads them.
    static let catalog: TypeCatalog = {
        let bin: URL
        if let configured = ProcessInfo.processInfo.environment["SALUS_BIN_DIR"], !configured.isEmpty {
            bin = URL(fileURLWithPath: configured, isDirectory: true)
        } else {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            bin = URL(fileURLWithPath: executable).deletingLastPathComponent()
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-import-plugins-\(UUID())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in PluginHost.bundledPlugins.values {
            try? FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(file), withDestinationURL: bin.appendingPathComponent(file))
        }
        return PluginHost.load(directories: [folder.path], logger: Logger(label: "import-tests")).registry.catalog
    }()

    @Test("an iOS 17 export: the root, the export date, Me and every record, entities decoded")
    func iOS17Export() throws {
        let (elements, reader) = try Self.read(try Self.data("alxdrcirilo-apple-health-parser/export.xml"))
        #expect(reader.rootName == "HealthData")
        #expect(reader.rootAttributes.first { $0.name == "locale" }?.value == "en_NL")
        #expect(elements.map(\.name).prefix(2) == ["ExportDate", "Me"])
        #expect(elements.filter { $0.name == "Record" }.count == 8)
        let me = try #require(elements.first { $0.name == "Me" })
        #expect(me["HKCharacteristicTypeIdentifierBloodType"] == "HKBloodTypeANegative")
        let first = try #require(elements.first { $0.name == "Record" })
        #expect(first["device"]?.hasPrefix("<<HKDevice: 0x3012772a0>, name:Apple Watch") == true)
        #expect(first["sourceName"] == "Alexandre's Apple Watch")
        #expect(first.children(named: "MetadataEntry").first?["key"] == "HKMetadataKeyHeartRateMotionContext")
    }

    @Test("chunks of any size give the same elements: one byte at a time, across the broken DTD of real exports")
    func chunking() throws {
        let dtd = try Self.data("tdda-applehealthdata/export6s3sample.xml")
        let whole = try Self.read(dtd).elements
        #expect(whole.filter { $0.name == "Record" }.count == 15)
        #expect(try Self.read(dtd, chunk: 1).elements == whole)
        #expect(try Self.read(dtd, chunk: 7).elements == whole)

        // iOS 16+ exports carry a DTD with a missing '>': never read, so never a problem.
        var text = String(decoding: dtd, as: UTF8.self)
        text = text.replacingOccurrences(of: "<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>",
                                         with: "<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)")
        #expect(try Self.read(Data(text.utf8), chunk: 3).elements == whole)
        let nested = try Self.read(try Self.data("dogsheep-healthkit-to-sqlite/export.xml"), chunk: 5).elements
        let workout = try #require(nested.first { $0.name == "Workout" })
        #expect(workout.children(named: "WorkoutRoute").first?.children(named: "Location").count == 2)
    }

    @Test("a damaged file stops with the line; an error of the consumer stops the reading")
    func errors() throws {
        let broken = Data("<HealthData>\n<Record type=\"x\">\n</HealthData>".utf8)
        #expect(throws: ExportReadError.self) { _ = try Self.read(broken) }
        do {
            _ = try Self.read(broken)
        } catch let error as ExportReadError {
            #expect(error.line == 3, "\(error)")
        }
        #expect(throws: ExportReadError.self) { _ = try Self.read(Data()) }

        struct Enough: Error {}
        var seen = 0
        let reader = ExportXMLReader { _ in
            seen += 1
            if seen == 2 { throw Enough() }
        }
        #expect(throws: Enough.self) { try reader.feed(try Self.data("tdda-applehealthdata/export6s3sample.xml")) }
        #expect(seen == 2)
    }

    @Test("attribute values decode entities once: &amp;lt; stays &lt;")
    func entities() throws {
        let xml = Data("<HealthData><Record sourceName=\"A &amp;lt; B &#xE9;t&#233;\" device=\"&lt;&lt;x&gt;\"/></HealthData>".utf8)
        let record = try #require(try Self.read(xml).elements.first)
        #expect(record["sourceName"] == "A &lt; B été")
        #expect(record["device"] == "<<x>")
    }

    @Test("records become samples by the running catalogue: units, category case names, metadata types, devices, dates")
    func mapping() throws {
        let mapper = RecordMapper(catalog: Self.catalog)
        let records = try Self.read(try Self.data("alxdrcirilo-apple-health-parser/export.xml")).elements.filter { $0.name == "Record" }
        let samples = try records.map { try mapper.record($0).sample }
        let heart = samples[0]
        #expect(heart.type.rawValue == "HKQuantityTypeIdentifierHeartRate")
        #expect(heart.value == .quantity(Quantity(value: 74, unit: try SalusUnit(parsing: "count/min"))))
        #expect(heart.startDate == ISO8601DateFormatter().date(from: "2023-12-31T23:01:36Z"))
        #expect(heart.metadata["HKMetadataKeyHeartRateMotionContext"] == .number(0))
        #expect(heart.device?.name == "Apple Watch" && heart.device?.hardwareVersion == "Watch6,7")
        #expect(heart.device?.manufacturer == "Apple Inc." && heart.device?.softwareVersion == "10.2")
        #expect(heart.sourceRevision.name == "Alexandre's Apple Watch" && heart.sourceRevision.version == "10.2")
        let sleep = samples.filter { $0.type.rawValue == "HKCategoryTypeIdentifierSleepAnalysis" }.map(\.value)
        #expect(sleep == [.category(0), .category(3)], "inBed 0, asleepCore 3")

        let steps = try Self.read(try Self.data("tdda-applehealthdata/export6s3sample.xml")).elements.filter { $0.name == "Record" }
        #expect(steps.count == 15)
        for step in steps { _ = try mapper.record(step) }
    }

    @Test("what real exports write: mL/min·kg, mmol<…>/L, Cal, % as a fraction, iOS 8 dates, missing category values; refusals name the field")
    func realWorldForms() throws {
        let mapper = RecordMapper(catalog: Self.catalog)
        func record(_ attributes: String, _ children: String = "") throws -> Sample {
            let xml = "<HealthData><Record sourceName=\"S\" startDate=\"2020-01-01 10:00:00 +0100\" endDate=\"2020-01-01 10:00:00 +0100\" \(attributes)>\(children)</Record></HealthData>"
            return try mapper.record(try #require(try Self.read(Data(xml.utf8)).elements.first)).sample
        }
        let vo2 = try record("type=\"HKQuantityTypeIdentifierVO2Max\" unit=\"mL/min·kg\" value=\"42.5\"")
        guard case .quantity(let quantity) = vo2.value else { Issue.record("not a quantity"); return }
        #expect(try quantity.converted(to: try SalusUnit(parsing: "ml/(kg*min)")).value == 42.5)
        let glucose = try record("type=\"HKQuantityTypeIdentifierBloodGlucose\" unit=\"mmol&lt;180.1558800000541&gt;/L\" value=\"5.5\"")
        guard case .quantity(let molar) = glucose.value else { Issue.record("not a quantity"); return }
        #expect(abs(try molar.converted(to: try SalusUnit(parsing: "mg/dL")).value - 99.09) < 0.01)
        let food = try record("type=\"HKQuantityTypeIdentifierDietaryEnergyConsumed\" unit=\"Cal\" value=\"250\"")
        guard case .quantity(let energy) = food.value else { Issue.record("not a quantity"); return }
        #expect(try energy.converted(to: .kilocalorie).value == 250)
        // HealthKit's % is a fraction: an oxygen saturation of 97 % is written 0.97.
        let oxygen = try record("type=\"HKQuantityTypeIdentifierOxygenSaturation\" unit=\"%\" value=\"0.97\"")
        guard case .quantity(let saturation) = oxygen.value else { Issue.record("not a quantity"); return }
        #expect(saturation.unit == .percent && abs(saturation.value - 97) < 1e-9, "\(saturation)")
        #expect(AppleHealthWriter.appleValue(saturation) == 0.97, "and written back as Apple writes it")
        let mindful = try record("type=\"HKCategoryTypeIdentifierMindfulSession\"")
        #expect(mindful.value == .category(0))
        let indoor = try record(
            "type=\"HKQuantityTypeIdentifierHeartRate\" unit=\"count/min\" value=\"60\"",
            "<MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/><MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/><MetadataEntry key=\"Meal\" value=\"Lunch\"/><MetadataEntry key=\"meal\" value=\"lunch\"/>")
        #expect(indoor.metadata["HKWasUserEntered"] == .bool(true))
        #expect(indoor.metadata["HKTimeZone"] == .string("Europe/Paris"))
        #expect(indoor.metadata["Meal"] == .string("Lunch") && indoor.metadata["meal"] == .string("lunch"))
        #expect(RecordMapperDates.parse("20140108164300-0800") == ISO8601DateFormatter().date(from: "2014-01-09T00:43:00Z"))

        func refusal(_ attributes: String) -> ImportRefusal? {
            do {
                _ = try record(attributes)
                return nil
            } catch let refusal as ImportRefusal {
                return refusal
            } catch {
                return nil
            }
        }
        #expect(refusal("type=\"HKQuantityTypeIdentifierNoSuchThing\" unit=\"count\" value=\"1\"")?.field == "type")
        #expect(refusal("type=\"HKQuantityTypeIdentifierStepCount\" unit=\"parsecs\" value=\"1\"")?.field == "unit")
        #expect(refusal("type=\"HKQuantityTypeIdentifierStepCount\" unit=\"count\" value=\"many\"")?.value == "many")
        #expect(refusal("type=\"HKCategoryTypeIdentifierSleepAnalysis\" value=\"HKCategoryValueSleepAnalysisDreaming\"")?.field == "value")
    }
}

/// The odd cases real exports hold (shared/data/README.md), each in a fixture of its own.
@Suite("Apple Health export odd cases")
struct ExportOddCaseTests {
    @Test("iOS 8: compact dates and source= instead of sourceName=")
    func iOS8() throws {
        let xml = """
            <HealthData locale="en_US"><Record type="HKQuantityTypeIdentifierStepCount" source="Health" unit="count" \
            startDate="20140108164300-0800" endDate="20140108164500-0800" value="120"/></HealthData>
            """
        let element = try #require(try ExportReaderTests.read(Data(xml.utf8)).elements.first)
        let sample = try RecordMapper(catalog: ExportReaderTests.catalog).record(element).sample
        #expect(sample.sourceRevision.name == "Health")
        #expect(sample.startDate == ISO8601DateFormatter().date(from: "2014-01-09T00:43:00Z"))
        #expect(sample.endDate.timeIntervalSince(sample.startDate) == 120)
    }

    @Test("source names with no-break and trailing spaces and curly apostrophes make one app id")
    func sourceNames() {
        #expect(RecordMapper.appID(forSource: "Anna’s\u{00A0}iPhone ") == "applehealth.annas-iphone")
        #expect(RecordMapper.appID(forSource: "Anna's iPhone") == "applehealth.annas-iphone")
        #expect(RecordMapper.appID(forSource: "Zoé Wätch 7") == "applehealth.zoe-watch-7")
        #expect(RecordMapper.appID(forSource: "") == "applehealth.unnamed")
    }

    @Test("exact duplicate records get the same sync identifier; different values do not")
    func duplicates() throws {
        let record = "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" unit=\"count\" startDate=\"2020-01-01 10:00:00 +0100\" endDate=\"2020-01-01 10:05:00 +0100\" value=\"%@\"/>"
        let xml = "<HealthData>" + String(format: record, "10") + String(format: record, "10") + String(format: record, "11") + "</HealthData>"
        let elements = try ExportReaderTests.read(Data(xml.utf8)).elements
        let mapper = RecordMapper(catalog: ExportReaderTests.catalog)
        let samples = try elements.map { try ImportIdentity.identified(mapper.record($0).sample) }
        let identifiers = samples.map(\.syncIdentifier)
        #expect(identifiers[0] == identifiers[1])
        #expect(identifiers[0] != identifiers[2])
        // A record with its own sync identifier keeps it.
        let own: [String: MetadataValue] = [MetadataKey.syncIdentifier: .string("mine"), MetadataKey.syncVersion: .number(3)]
        var mine = samples[0]
        mine.metadata = own
        #expect(ImportIdentity.identified(mine).metadata == own)
    }
}

/// Heart rate variability with its list of beats, in both time styles exports use.
@Suite("Apple Health HRV beat lists")
struct HeartbeatListTests {
    static func series(_ start: String, _ end: String, _ times: [String]) throws -> Sample? {
        let beats = times.map { "<InstantaneousBeatsPerMinute bpm=\"62\" time=\"\($0)\"/>" }.joined()
        let xml = """
            <HealthData><Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="W" unit="ms" \
            startDate="\(start)" endDate="\(end)" value="41"><HeartRateVariabilityMetadataList>\(beats)</HeartRateVariabilityMetadataList></Record></HealthData>
            """
        let element = try #require(try ExportReaderTests.read(Data(xml.utf8)).elements.first)
        let mapper = RecordMapper(catalog: ExportReaderTests.catalog)
        let record = try mapper.record(element).sample
        return try mapper.heartbeatSeries(element, record: record)
    }

    @Test("12-hour and 24-hour comma times become beats from the record's start; midnight is crossed")
    func beats() throws {
        let series = try #require(try Self.series(
            "2024-03-01 19:47:40 +0100", "2024-03-01 19:48:40 +0100", ["7:47:41.86 PM", "19:47:42,71", "7:47:43.50 PM"]))
        guard case .heartbeatSeries(let value) = series.value else { Issue.record("not a series"); return }
        let times = value.beats.map(\.timeSinceSeriesStart)
        #expect(times.count == 3)
        for (time, expected) in zip(times, [1.86, 2.71, 3.5]) { #expect(abs(time - expected) < 1e-6, "\(times)") }
        #expect(series.type.rawValue == "HKDataTypeIdentifierHeartbeatSeries")
        #expect(ExportReaderTests.catalog.validationErrors(of: series).isEmpty, "\(ExportReaderTests.catalog.validationErrors(of: series))")

        let late = try #require(try Self.series("2024-03-01 23:59:59 +0100", "2024-03-02 00:00:59 +0100", ["00:00:00,50"]))
        guard case .heartbeatSeries(let crossing) = late.value else { Issue.record("not a series"); return }
        #expect(abs((crossing.beats.first?.timeSinceSeriesStart ?? 0) - 1.5) < 1e-6)
        #expect(throws: ImportRefusal.self) { _ = try Self.series("2024-03-01 19:47:40 +0100", "2024-03-01 19:48:40 +0100", ["soon"]) }
    }
}
