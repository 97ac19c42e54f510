import Foundation
import SalusFHIR
import SalusKit
import SalusModel
import SalusSpawn
import SalusTestSupport
import Testing

/// The FHIR Bundle written by `FHIRBundleWriter` from samples saved through the services: checked
/// by an independent FHIR R4 implementation (fhir.resources 6.1.0, R4 4.0.1, installed by
/// scripts/setup into .build-tools/fhir-python), and read here for the codes a care-team server
/// relies on.
@Suite("FHIR export")
struct FHIRExportTests {
    static let morning = Date(timeIntervalSince1970: 1_795_250_000.25)
    static func at(_ seconds: TimeInterval) -> Date { morning.addingTimeInterval(seconds) }
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func samples() throws -> [Sample] {
        let watch = Device(name: "Apple \"Watch\"", manufacturer: "Apple Inc.")
        return [
            .quantity(.heartRate, Quantity(value: 1.2, unit: SalusUnit.count.divided(by: .second)), start: at(0), device: watch),
            .quantity(.stepCount, Quantity(value: 1234, unit: .count), start: at(0), end: at(600)),
            .quantity("HKQuantityTypeIdentifierBodyTemperature", Quantity(value: 98.6, unit: try SalusUnit(parsing: "degF")), start: at(60)),
            .quantity("HKQuantityTypeIdentifierBodyMass", Quantity(value: 150, unit: try SalusUnit(parsing: "lb")), start: at(120)),
            .quantity("HKQuantityTypeIdentifierOxygenSaturation", Quantity(value: 97, unit: try SalusUnit(parsing: "%")), start: at(180)),
            .quantity("HKQuantityTypeIdentifierWalkingSpeed", Quantity(value: 1.3, unit: try SalusUnit(parsing: "m/s")), start: at(240), end: at(300)),
            .sleepAnalysis(.asleepDeep, start: at(-3600), end: at(-1800)),
            .bloodPressure(systolic: 121, diastolic: 79, start: at(3600)),
            Sample(
                type: TypeIdentifier("HKWorkoutTypeIdentifier"), startDate: at(7200), endDate: at(9000),
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource),
        ]
    }

    static let types = [
        "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierBodyTemperature",
        "HKQuantityTypeIdentifierBodyMass", "HKQuantityTypeIdentifierOxygenSaturation", "HKQuantityTypeIdentifierWalkingSpeed",
        "HKCategoryTypeIdentifierSleepAnalysis", "HKCorrelationTypeIdentifierBloodPressure", "HKWorkoutTypeIdentifier",
    ]

    /// The python with fhir.resources: scripts/setup's environment; nil when the machine has no
    /// python3 at all.
    static func python() -> URL? {
        let private_ = packageRoot.appendingPathComponent(".build-tools/fhir-python/bin/python3")
        if FileManager.default.isExecutableFile(atPath: private_.path) { return private_ }
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") } ? private_ : nil
    }

    /// Runs the FHIR R4 model of fhir.resources over `file`: every entry must parse as the
    /// resource it says it is. Returns the script's output and exit status.
    static func validate(_ file: URL, python: URL) throws -> (status: Int32, output: String) {
        let script = """
            import json, sys
            import fhir.resources
            from fhir.resources.bundle import Bundle
            assert fhir.resources.__fhir_version__ == "4.0.1", fhir.resources.__fhir_version__
            bundle = Bundle.parse_file(sys.argv[1])
            kinds = sorted({entry.resource.resource_type for entry in bundle.entry})
            print(bundle.type, len(bundle.entry), ",".join(kinds))
            """
        let process = try ChildProcess(
            executable: python.path, arguments: ["-c", script, file.path], standardOutput: .pipe, standardError: .output)
        let output = String(decoding: ChildProcess.readToEnd(process.outputDescriptor), as: UTF8.self)
        return (process.waitUntilExit().shellStatus, output)
    }

    @Test("samples become a FHIR R4 Bundle of Observations that validates: LOINC, UCUM, periods with offsets, the blood pressure panel")
    func bundleValidates() async throws {
        guard let python = Self.python() else {
            Issue.record("skipped: no python3 on this machine, so the Bundle cannot be validated with fhir.resources")
            return
        }
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "\(python.path) is missing: run scripts/setup, which installs fhir.resources into it")
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.healthStore("org.example.vitals", name: "Vitals")
        _ = try await app.save(try Self.samples())
        let owner = HealthStore(client: try await server.owner())

        let file = server.directory.appendingPathComponent("bundle.json")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let catalog = server.services.plugins.registry.catalog
        let cases = Dictionary(uniqueKeysWithValues: catalog.types.values.map { rules in
            (rules.identifier, Dictionary(rules.cases.map { ($0.rawValue, $0.name) }) { first, _ in first })
        })
        let writer = FHIRBundleWriter(timeZone: TimeZone(identifier: "Asia/Kolkata")!, cases: cases) { text in
            try handle.write(contentsOf: Data(text.utf8))
        }
        try writer.begin(timestamp: Self.morning)
        var written = 0
        var refused = 0
        for type in Self.types {
            for sample in try await SampleQueryDescriptor(type: SampleType(type), sortDescriptors: [.startDate()]).result(for: owner) {
                if try writer.write(sample) { written += 1 } else { refused += 1 }
            }
        }
        try writer.finish()
        try handle.close()
        #expect(written == 8 && refused == 1, "the workout has no Observation form")

        let result = try Self.validate(file, python: python)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "collection 8 Observation", "\(result.output)")

        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        func codes(_ resource: [String: Any]) -> [String] {
            ((resource["code"] as? [String: Any])?["coding"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        }
        func observation(_ loinc: String) -> [String: Any]? { resources.first { codes($0).first == loinc } }
        func value(_ resource: [String: Any]?) -> (Double?, String?) {
            let quantity = resource?["valueQuantity"] as? [String: Any]
            return (quantity?["value"] as? Double, quantity?["code"] as? String)
        }

        let heart = try #require(observation("8867-4"))
        #expect(value(heart) == (72, "/min"), "1.2 per second, in per minute")
        #expect(heart["effectiveDateTime"] as? String == "2026-11-21T14:03:20.250+05:30")
        #expect(((heart["category"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]])?.first?["code"] as? String == "vital-signs")
        #expect((heart["device"] as? [String: Any])?["display"] as? String == "Apple \"Watch\"")
        let steps = try #require(observation("55423-8"))
        #expect(value(steps) == (1234, "{steps}"))
        #expect((steps["effectivePeriod"] as? [String: Any])?["end"] as? String == "2026-11-21T14:13:20.250+05:30")
        let temperature = value(observation("8310-5"))
        #expect(temperature.1 == "Cel" && abs((temperature.0 ?? 0) - 37) < 1e-9)
        let mass = value(observation("29463-7"))
        #expect(mass.1 == "kg" && abs((mass.0 ?? 0) - 68.0388555) < 1e-6)
        #expect(value(observation("2708-6")) == (97, "%"))
        let walking = try #require(resources.first { codes($0) == ["HKQuantityTypeIdentifierWalkingSpeed"] }, "no LOINC code: the Salus code alone")
        #expect(value(walking) == (1.3, "m/s") && walking["category"] == nil)
        let sleep = try #require(resources.first { codes($0) == ["HKCategoryTypeIdentifierSleepAnalysis"] })
        let sleepValue = ((sleep["valueCodeableConcept"] as? [String: Any])?["coding"] as? [[String: Any]])?.first
        #expect(sleepValue?["code"] as? String == "asleepDeep")
        #expect(sleepValue?["system"] as? String == "https://salus.invalid/fhir/value/HKCategoryTypeIdentifierSleepAnalysis")

        let panel = try #require(observation("85354-9"))
        let components = panel["component"] as? [[String: Any]] ?? []
        #expect(Set(components.compactMap { codes($0).first }) == ["8480-6", "8462-4"])
        #expect(components.allSatisfy { value($0).1 == "mm[Hg]" })
        #expect(components.compactMap { value($0).0 }.sorted() == [79, 121])
        await server.stop()
    }
}
