import Foundation
import SalusImport
import SalusModel
import SalusProto
import SalusRPC
import SalusStore
import SalusTestSupport
import Testing

/// One history exported more than once: Apple writes every date with the UTC offset the phone had
/// at export time, and the device description as it likes, so the same record comes back with
/// other text. Each export must merge into what is there.
@Suite("salus.v1.Import: exports that merge")
struct ImportMergeTests {
    /// `yyyy-MM-dd HH:mm:ss ±hhmm` of `utc` seen at `offset` seconds east of UTC; `zulu` writes
    /// the instant in UTC with a `Z`.
    static func stamp(_ utc: Date, offset: Int, zulu: Bool = false) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: zulu ? 0 : offset)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: utc)
        let date = String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        if zulu { return date + "Z" }
        let sign = offset < 0 ? "-" : "+"
        return date + " " + sign + String(format: "%02d%02d", abs(offset) / 3600, abs(offset) % 3600 / 60)
    }

    /// The same small history (heart rate with metadata and a device, steps, sleep, a blood
    /// pressure correlation, a workout, an HRV record with its beats) as an export written at
    /// `offset`; `device` is the Watch's description as that export writes it. `later` adds a
    /// heart rate taken after the first export, as a later export of the same history holds.
    static func export(offset: Int, zulu: Bool = false, device: String, later: Bool = false) -> Data {
        let base = Date(timeIntervalSince1970: 1_557_852_729)  // 2019-05-14 16:52:09 UTC
        func at(_ seconds: Double) -> String { stamp(base.addingTimeInterval(seconds), offset: offset, zulu: zulu) }
        let watch = "sourceName=\"Anna’s Apple Watch\" sourceVersion=\"5.2\" device=\"\(device)\""
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="\(at(86_400 * 200))"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" \(watch) unit="count/min" creationDate="\(at(70))" startDate="\(at(0))" endDate="\(at(0))" value="74">
              <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
             </Record>
             <Record type="HKQuantityTypeIdentifierHeartRate" \(watch) unit="count/min" creationDate="\(at(370))" startDate="\(at(300))" endDate="\(at(300))" value="75.5"/>
             \(later ? "<Record type=\"HKQuantityTypeIdentifierHeartRate\" \(watch) unit=\"count/min\" startDate=\"\(at(86_400 * 30))\" endDate=\"\(at(86_400 * 30))\" value=\"61\"/>" : "")
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s iPhone" sourceVersion="12.2" unit="count" creationDate="\(at(900))" startDate="\(at(0))" endDate="\(at(600))" value="812"/>
             <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Anna’s iPhone" sourceVersion="12.2" value="HKCategoryValueSleepAnalysisAsleep" creationDate="\(at(-3600))" startDate="\(at(-30_000))" endDate="\(at(-3_600))"/>
             <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="\(at(1000))" endDate="\(at(1000))" value="121"/>
             <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="\(at(1000))" endDate="\(at(1000))" value="79"/>
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="\(at(1000))" endDate="\(at(1000))">
              <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="\(at(1000))" endDate="\(at(1000))" value="79"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="\(at(1000))" endDate="\(at(1000))" value="121"/>
             </Correlation>
             <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" \(watch) unit="ms" creationDate="\(at(2060))" startDate="\(at(2000))" endDate="\(at(2060))" value="48.2">
              <HeartRateVariabilityMetadataList>
               <InstantaneousBeatsPerMinute bpm="62" time="\(String(at(2000).dropFirst(11).prefix(8))),10"/>
               <InstantaneousBeatsPerMinute bpm="63" time="\(String(at(2001).dropFirst(11).prefix(8))),05"/>
              </HeartRateVariabilityMetadataList>
             </Record>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" totalDistance="5.2" totalDistanceUnit="km" totalEnergyBurned="350" totalEnergyBurnedUnit="kcal" \(watch) creationDate="\(at(5000))" startDate="\(at(3000))" endDate="\(at(4800))">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="5.2" startDate="\(at(3000))" endDate="\(at(4800))">
               <Location date="\(at(3001))" latitude="52.52" longitude="13.4" altitude="34" horizontalAccuracy="4" verticalAccuracy="3" course="-1" speed="2.9"/>
               <Location date="\(at(4799))" latitude="52.53" longitude="13.41" altitude="35" horizontalAccuracy="4" verticalAccuracy="3" course="90" speed="3.1"/>
              </WorkoutRoute>
             </Workout>
            </HealthData>
            """
        return Data(xml.utf8)
    }

    static let watch = "&lt;&lt;HKDevice: 0x283ef4a50&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch4,4, software:5.2&gt;"
    /// The same Watch as a later export writes it: another address, fields in another order and spacing.
    static let watchAgain = "&lt;&lt;HKDevice: 0x3012772a0&gt;,  model:Watch, name:Apple Watch, manufacturer:Apple Inc., software:5.2, hardware:Watch4,4&gt;"

    /// Samples of each type the history holds, in the store.
    static func counts(_ owner: RPCClient) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for type in [
            "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKCategoryTypeIdentifierSleepAnalysis",
            "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
            "HKCorrelationTypeIdentifierBloodPressure", "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
            "HKDataTypeIdentifierHeartbeatSeries", "HKWorkoutTypeIdentifier",
        ] {
            counts[type] = try await ImportServiceTests.samples(owner, type).count
        }
        return counts
    }

    static let once: [String: Int] = [
        "HKQuantityTypeIdentifierHeartRate": 2, "HKQuantityTypeIdentifierStepCount": 1, "HKCategoryTypeIdentifierSleepAnalysis": 1,
        "HKQuantityTypeIdentifierBloodPressureSystolic": 1, "HKQuantityTypeIdentifierBloodPressureDiastolic": 1,
        "HKCorrelationTypeIdentifierBloodPressure": 1, "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": 1,
        "HKDataTypeIdentifierHeartbeatSeries": 1, "HKWorkoutTypeIdentifier": 1,
    ]

    @Test("the same history exported in summer (+0200), in winter (+0100) with a later sample, in another zone (-0400) and in UTC, with the device written otherwise, is saved once, routes included")
    func exportsAtOtherOffsetsMerge() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let first = try await ImportServiceTests.importExport(owner, Self.export(offset: 7200, device: Self.watch))
        #expect(first.skipped == 0, "\(first.problems)")
        #expect(try await Self.counts(owner) == Self.once)
        #expect(try await ImportServiceTests.routes(owner).count == 1)
        var once = Self.once
        once["HKQuantityTypeIdentifierHeartRate"]! += 1
        for (offset, zulu, device) in [(3600, false, Self.watchAgain), (-4 * 3600, false, Self.watch), (0, true, Self.watchAgain)] {
            let again = try await ImportServiceTests.importExport(owner, Self.export(offset: offset, zulu: zulu, device: device, later: true))
            #expect(again.skipped == 0, "\(again.problems)")
            #expect(again.saved == (offset == 3600 ? 1 : 0), "offset \(offset)\(zulu ? " (Z)" : ""): only the later sample is new: \(again)")
            #expect(try await Self.counts(owner) == once, "offset \(offset)")
            #expect(try await ImportServiceTests.routes(owner).count == 1, "offset \(offset)")
        }
        await owner.close()
        await server.stop()
    }

    /// The sync identifier an import saved before identities rested on instants: the date text,
    /// and value and unit as written (`applehealth:2019-05-14 18:52:09 +0200|…`); a heartbeat
    /// series `applehealth:beats|start|end`. Written here from the old rule, not the importer's code.
    static func legacyIdentifier(_ element: ExportElement) -> String {
        var parts = [element["startDate"] ?? "", element["endDate"] ?? "", (element["value"] ?? "") + (element["unit"] ?? "")]
        for child in element.children(named: "Record") {
            parts.append((child["type"] ?? "") + "=" + (child["value"] ?? "") + (child["unit"] ?? ""))
        }
        return "applehealth:" + parts.joined(separator: "|")
    }

    /// Saves `data` into `store` as an import before this version did: each sample under its
    /// source's app id with the old, date-text sync identifier.
    static func saveAsBefore(_ data: Data, into store: SampleStore) async throws -> Int {
        let mapper = RecordMapper(catalog: store.catalog)
        var bySource: [String: [Sample]] = [:]
        // Routes kept the identifier they have today (count, first and last location).
        var routes: [String: [Int: [ImportedRoute]]] = [:]
        func legacy(_ sample: Sample, _ identifier: String) -> Sample {
            var copy = sample
            copy.metadata[MetadataKey.syncIdentifier] = .string(identifier)
            copy.metadata[MetadataKey.syncVersion] = .number(1)
            return copy
        }
        let reader = ExportXMLReader(limits: .standard) { element in
            do {
                let source = element["sourceName"] ?? ""
                switch element.name {
                case "Record":
                    let record = try mapper.record(element).sample
                    bySource[source, default: []].append(legacy(record, legacyIdentifier(element)))
                    if let series = try mapper.heartbeatSeries(element, record: record) {
                        let beats = "applehealth:beats|\(element["startDate"] ?? "")|\(element["endDate"] ?? "")"
                        bySource[source, default: []].append(legacy(series, beats))
                    }
                case "Correlation":
                    var sample = try mapper.correlation(element)
                    guard case .correlation(var correlation) = sample.value else { return }
                    let children = element.children(named: "Record")
                    correlation.objects = zip(correlation.objects, children).map { legacy($0, legacyIdentifier($1)) }
                    sample.value = .correlation(correlation)
                    bySource[source, default: []].append(legacy(sample, legacyIdentifier(element)))
                case "Workout":
                    bySource[source, default: []].append(legacy(try mapper.workout(element), legacyIdentifier(element)))
                    routes[source, default: [:]][bySource[source]!.count - 1] = try mapper.routes(of: element)
                default:
                    break
                }
            } catch {
                Issue.record("\(error)")
            }
        }
        try reader.feed(data)
        try reader.finish()
        var saved = 0
        for (name, samples) in bySource {
            let source = SourceRevision(appID: RecordMapper.appID(forSource: name), name: name, version: samples.first?.sourceRevision.version)
            let response = try await store.save(samples, source: source, options: SaveOptions(uuidPolicy: .assign))
            saved += response.results.filter { $0.outcome == .saved }.count
            for (index, workoutRoutes) in routes[name] ?? [:] {
                for route in workoutRoutes {
                    let sample = mapper.routeSample(route, locations: route.locations, workout: response.results[index].uuid)
                    let routeSource = SourceRevision(
                        appID: RecordMapper.appID(forSource: route.source.name), name: route.source.name, version: route.source.version)
                    _ = try await store.save([sample], source: routeSource, options: SaveOptions(uuidPolicy: .assign))
                }
            }
        }
        return saved
    }

    @Test("a store holding an import made with the old, date-text identities: the same export, or one at another offset, adds nothing")
    func storeOfOldIdentities() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let saved = try await Self.saveAsBefore(Self.export(offset: 7200, device: Self.watch), into: server.services.store)
        #expect(saved > 0)
        let before = try await Self.counts(owner)
        #expect(before["HKQuantityTypeIdentifierHeartRate"] == 2 && before["HKWorkoutTypeIdentifier"] == 1, "\(before)")

        let same = try await ImportServiceTests.importExport(owner, Self.export(offset: 7200, device: Self.watch))
        #expect(same.saved == 0 && same.skipped == 0, "the same file: \(same)")
        #expect(try await Self.counts(owner) == before)
        let winter = try await ImportServiceTests.importExport(owner, Self.export(offset: 3600, device: Self.watchAgain))
        #expect(winter.saved == 0 && winter.skipped == 0, "another offset: \(winter)")
        #expect(try await Self.counts(owner) == before)
        #expect(try await ImportServiceTests.routes(owner).count == 1)
        await owner.close()
        await server.stop()
    }
}
