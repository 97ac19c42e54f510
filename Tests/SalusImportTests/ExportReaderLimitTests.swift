import Foundation
import SalusImport
import SalusModel
import Testing

/// What a hostile export.xml meets in the reader: deep nesting, endless attributes and document
/// type declarations hidden behind comments or processing instructions. Each is refused with the
/// line and what was expected, in bounded time and memory, and never crashes the process.
@Suite("Apple Health export reading: limits and document type declarations")
struct ExportReaderLimitTests {
    /// Reads `data` in chunks of `chunk` bytes with `limits`; the top-level elements in order.
    static func read(_ data: Data, chunk: Int = 1 << 16, limits: ImportLimits = .standard) throws -> (elements: [ExportElement], reader: ExportXMLReader) {
        var elements: [ExportElement] = []
        let reader = ExportXMLReader(limits: limits) { elements.append($0) }
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            try reader.feed(data.subdata(in: offset..<end))
            offset = end
        }
        try reader.finish()
        return (elements, reader)
    }

    static let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2026-01-01 10:00:00 +0000" endDate="2026-01-01 10:01:00 +0000" value="5""#

    @Test("100,000 elements nested inside one Record are refused naming the line and the limit, without a crash")
    func deepNesting() throws {
        let depth = 100_000
        var text = "<?xml version=\"1.0\"?>\n<HealthData>\n" + Self.record + ">\n"
        text += String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        text += "</Record>\n</HealthData>\n"
        do {
            let read = try Self.read(Data(text.utf8))
            Issue.record("read \(read.elements.count) elements")
        } catch let error as ExportReadError {
            #expect(error.line == 4, "\(error)")
            #expect(error.message.contains("nested") && error.message.contains("<Record> of line 3"), "\(error)")
            #expect(error.message.contains("\(ImportLimits.standard.maximumDepth)"), "\(error)")
        }
        // Apple's deepest nesting (a workout's activity's statistics) is well inside the limit.
        let workout = """
            <HealthData><Workout workoutActivityType="HKWorkoutActivityTypeRunning" startDate="2026-01-01 10:00:00 +0000" endDate="2026-01-01 11:00:00 +0000">
            <WorkoutActivity uuid="1" startDate="2026-01-01 10:00:00 +0000"><WorkoutStatistics type="x"/><MetadataEntry key="k" value="v"/></WorkoutActivity>
            </Workout></HealthData>
            """
        #expect(try Self.read(Data(workout.utf8)).elements.first?.children.first?.children.count == 2)
    }

    @Test("nesting exactly at the limit is read; one deeper is refused")
    func depthBoundary() throws {
        var limits = ImportLimits.standard
        limits.maximumDepth = 4
        // Depth counts elements below the root: Record is 1.
        func document(_ depth: Int) -> Data {
            Data(("<HealthData>" + Self.record + ">" + String(repeating: "<a>", count: depth - 1) + String(repeating: "</a>", count: depth - 1)
                + "</Record></HealthData>").utf8)
        }
        #expect(try Self.read(document(4), limits: limits).elements.count == 1)
        #expect(throws: ExportReadError.self) { try Self.read(document(5), limits: limits) }
    }

    @Test("an attribute above the limit is refused naming the element, the attribute, its size and the limit")
    func longAttribute() throws {
        var limits = ImportLimits.standard
        limits.maximumAttributeBytes = 1000
        let text = "<HealthData>\n\n" + Self.record + " device=\"" + String(repeating: "x", count: 10_000) + "\"/></HealthData>"
        do {
            _ = try Self.read(Data(text.utf8), limits: limits)
            Issue.record("a 10,000-byte attribute was read")
        } catch let error as ExportReadError {
            #expect(error.line == 3, "\(error)")
            #expect(error.message.contains("device") && error.message.contains("Record"), "\(error)")
            #expect(error.message.contains("10000 bytes") && error.message.contains("1000"), "\(error)")
        }
        // At the limit, read.
        let fits = "<HealthData>" + Self.record + " device=\"" + String(repeating: "x", count: 1000) + "\"/></HealthData>"
        #expect(try Self.read(Data(fits.utf8), limits: limits).elements.first?["device"]?.count == 1000)
    }

    @Test("an endless attribute is refused while it streams in: the reader stops long before the end of the file")
    func endlessAttribute() throws {
        var limits = ImportLimits.standard
        limits.maximumAttributeBytes = 1000
        limits.maximumMarkupBytes = 64 << 10
        let head = Data(("<HealthData>\n" + Self.record + " device=\"").utf8)
        var elements = 0
        let reader = ExportXMLReader(limits: limits) { _ in elements += 1 }
        try reader.feed(head)
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 16 << 10)
        var failure: ExportReadError?
        // 64 MiB offered, 16 KiB at a time.
        for _ in 0..<4096 {
            do {
                try reader.feed(chunk)
            } catch let error as ExportReadError {
                failure = error
                break
            }
        }
        let error = try #require(failure, "64 MiB of one attribute were taken")
        #expect(reader.bytesRead < 128 << 10, "stopped after \(reader.bytesRead) bytes")
        #expect(error.line == 2, "\(error)")
        #expect(error.message.contains("65536"), "\(error)")
        #expect(elements == 0)
    }

    /// An export whose DTD is broken as iOS 16's is (a declaration without its '>'), behind
    /// `prolog`: it must be skipped, never read, whatever comes before it.
    static func export(prolog: String, subset: String = "") -> Data {
        Data(("""
            <?xml version="1.0" encoding="UTF-8"?>
            \(prolog)
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 14 -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)
            \(subset)
            ]>
            <HealthData locale="en_US">
            """ + "\n " + record + "/>\n</HealthData>\n").utf8)
    }

    @Test(
        "a comment or processing instruction holding '<x' before the DOCTYPE does not let the DTD through",
        arguments: [
            "<!-- exported <x by a tool -->",
            "<?tool run <x?>",
            "<!-- a > and <x and - inside -->\n<?pi <x > ?>",
            "<!-- <!DOCTYPE inside a comment -->",
        ])
    func doctypeAfterCommentOrPI(prolog: String) throws {
        let (elements, reader) = try Self.read(Self.export(prolog: prolog))
        #expect(reader.rootName == "HealthData")
        #expect(elements.count == 1)
        // Line numbers stay the file's: the record is on the line after <HealthData>.
        #expect(elements.first?.line == prolog.split(separator: "\n").count + 8)
        // One byte at a time, the same.
        #expect(try Self.read(Self.export(prolog: prolog), chunk: 1).elements == elements)
    }

    @Test(
        "a DTD's literals, comments and processing instructions may hold ']>' without ending it",
        arguments: [
            "<!ENTITY a \"]>\">",
            "<!ENTITY b ']>'>",
            "<!-- ]> -->",
            "<?pi ]> ?>",
            "<!ATTLIST HealthData locale CDATA \"]\">",
        ])
    func subsetGrammar(subset: String) throws {
        let (elements, reader) = try Self.read(Self.export(prolog: "", subset: subset), chunk: 3)
        #expect(reader.rootName == "HealthData")
        #expect(elements.count == 1, "\(subset)")
    }

    @Test("entities a DTD declares are never expanded: a reference to one is refused as undeclared")
    func entitiesNeverExpanded() throws {
        let tricks = [
            // The plain case, and a second DOCTYPE after the first, and one behind a comment.
            "<!DOCTYPE HealthData [<!ENTITY e \"EXPANDED\">]>",
            "<!DOCTYPE HealthData>\n<!DOCTYPE HealthData [<!ENTITY e \"EXPANDED\">]>",
            "<!-- <x -->\n<!DOCTYPE HealthData [<!ENTITY e \"EXPANDED\">]>",
            "<?x <y?><!DOCTYPE HealthData [<!ENTITY e \"EXPANDED\">]>",
        ]
        for prolog in tricks {
            let text = "<?xml version=\"1.0\"?>\n" + prolog + "\n<HealthData>" + Self.record + " device=\"&e;\"/></HealthData>"
            do {
                let (elements, _) = try Self.read(Data(text.utf8))
                Issue.record("read \(elements.first?["device"] ?? "nothing") from \(prolog)")
            } catch let error as ExportReadError {
                #expect(!error.message.contains("EXPANDED"), "\(error)")
                #expect(error.message.contains("e"), "\(error)")
            }
        }
    }
}

/// A route's GPX side file meets the same attacks.
@Suite("GPX side files: DTDs and nesting")
struct GPXLimitTests {
    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let track = "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\"><trk><trkseg>"
        + "<trkpt lat=\"48.85\" lon=\"2.35\"><ele>35</ele><time>2026-01-01T10:00:00Z</time></trkpt>"

    @Test("a GPX that declares a DTD is refused before anything in it is used: billion laughs, an external entity")
    func doctype() throws {
        var laughs = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 { laughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">" }
        for subset in [laughs, "<!ENTITY leak SYSTEM \"file:///etc/hostname\">"] {
            let entity = subset.hasPrefix("<!ENTITY lol") ? "&lol9;" : "&leak;"
            let gpx = Self.head + "<!DOCTYPE gpx [" + subset + "]>\n" + Self.track
                + "<trkpt lat=\"48.85\" lon=\"2.35\"><ele>\(entity)</ele><time>2026-01-01T10:00:01Z</time></trkpt></trkseg></trk></gpx>"
            let started = ContinuousClock.now
            #expect(throws: GPX.ReadError.self) { try GPX.read(Data(gpx.utf8)) }
            do {
                _ = try GPX.read(Data(gpx.utf8))
            } catch {
                #expect(!error.description.contains("lollol"), "\(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
        // Even one that declares an entity it never uses.
        let unused = Self.head + "<!DOCTYPE gpx [<!ENTITY unused \"x\">]>\n" + Self.track + "</trkseg></trk></gpx>"
        do {
            let points = try GPX.read(Data(unused.utf8))
            Issue.record("read \(points.count) points")
        } catch {
            #expect(error.description.contains("document type declaration"), "\(error)")
        }
        #expect(try GPX.read(Data((Self.head + Self.track + "</trkseg></trk></gpx>").utf8)).count == 1)
    }

    @Test("a GPX nested 100,000 deep is refused naming the line, without a crash")
    func deepNesting() throws {
        let gpx = Self.head + Self.track + "\n" + String(repeating: "<extensions>", count: 100_000) + String(repeating: "</extensions>", count: 100_000)
            + "</trkseg></trk></gpx>"
        #expect(throws: GPX.ReadError.self) { try GPX.read(Data(gpx.utf8)) }
    }
}

/// Numbers in an export that would overflow an integer are refused, never a trap.
@Suite("Apple Health export reading: numbers out of range")
struct ExportNumberRangeTests {
    @Test("a beat time whose minutes or hours overflow when multiplied is refused naming the field", arguments: [
        "10:-9223372036854775807:00", "-9223372036854775807:00:00", "10:00:-1e308", "10:00:nan",
    ])
    func beatTimes(time: String) throws {
        #expect(throws: ImportRefusal.self) {
            _ = try HeartbeatListTests.series("2024-03-01 19:47:40 +0100", "2024-03-01 19:48:40 +0100", [time])
        }
    }

    @Test("a workout activity type above UInt32's range is written as its number")
    func activityType() {
        let names = ExportNames(catalog: ExportReaderTests.catalog)
        #expect(names.activityType(UInt(UInt32.max) + 1) == "\(UInt(UInt32.max) + 1)")
        #expect(names.activityType(37) == "HKWorkoutActivityTypeRunning")
    }
}
