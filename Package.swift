// swift-tools-version:6.1
// Salus: a health-data platform for Linux. SalusModel (the domain) and SalusProto (generated from
// Protos/) depend on no target here; SalusWire converts between them; salusd runs SalusServer, apps
// link SalusKit, salusctl calls SalusAdmin (and SalusExport for exports). Every target with its
// dependencies: docs/architecture.md (scripts/check-architecture).
import Foundation
import PackageDescription

let package = Package(
    name: "Salus",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "salusd", targets: ["salusd"]),
        .executable(name: "salusctl", targets: ["salusctl"]),
        .executable(name: "salus-sync", targets: ["salus-sync"]),
        .executable(name: "salus-notify", targets: ["salus-notify"]),
        .library(name: "SalusKit", targets: ["SalusKit"]),
        // The owner's typed client of the admin socket (what salusctl is built on).
        .library(name: "SalusAdmin", targets: ["SalusAdmin"]),
        // Helpers for writing a plugin in Swift (compiled into each plugin).
        .library(name: "SalusPluginKit", targets: ["SalusPluginKit"]),
        // The bundled plugins: one shared library each (libSalusCore.so, ...), loaded by salusd.
        .library(name: "SalusCore", type: .dynamic, targets: ["SalusCore"]),
        .library(name: "SalusSleep", type: .dynamic, targets: ["SalusSleep"]),
        .library(name: "SalusReproductive", type: .dynamic, targets: ["SalusReproductive"]),
        .library(name: "SalusMobility", type: .dynamic, targets: ["SalusMobility"]),
        .library(name: "SalusVision", type: .dynamic, targets: ["SalusVision"]),
        .library(name: "SalusWheelchair", type: .dynamic, targets: ["SalusWheelchair"]),
        .library(name: "SalusVitals", type: .dynamic, targets: ["SalusVitals"]),
        .library(name: "SalusNutrition", type: .dynamic, targets: ["SalusNutrition"]),
        .library(name: "SalusHearing", type: .dynamic, targets: ["SalusHearing"]),
        .library(name: "SalusSymptoms", type: .dynamic, targets: ["SalusSymptoms"]),
        .library(name: "SalusLab", type: .dynamic, targets: ["SalusLab"]),
        .library(name: "SalusMindfulness", type: .dynamic, targets: ["SalusMindfulness"]),
        .library(name: "SalusClinical", type: .dynamic, targets: ["SalusClinical"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/JohnSundell/Plot", from: "0.14.0"),
        // salus-sync only: the PostgreSQL client.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The domain in plain values: no I/O.
        .target(name: "SalusModel"),

        // Protocol Buffers' binary format by hand, where the generated code is not used: the
        // store's page encoder, SalusKit's page decoder, SalusPluginKit. Depends on nothing.
        .target(name: "SalusProtoCodec"),

        // Code generated from Protos/ by scripts/generate-protos (committed).
        .target(
            name: "SalusProto",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),

        // Samples, predicates and errors between the wire and the model.
        .target(name: "SalusWire", dependencies: ["SalusModel", "SalusProto"]),

        // Framing, connections, multiplexed calls, streams, deadlines: server and client.
        .target(
            name: "SalusRPC",
            dependencies: [
                "SalusProto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),

        // The system SQLite library.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The system libxml2 (clinical documents, and the Apple Health importer).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // Clinical documents: the HL7 CDA check and the fields read from a document.
        .target(name: "SalusDocuments", dependencies: ["SalusModel", "CLibXML2"]),
        // Apple Health exports: the streaming export.xml reader, the mapping to samples, and the writer;
        // activity files (FIT) to workouts and samples, and the format of a file told by its content.
        .target(name: "SalusImport", dependencies: ["SalusModel", "CLibXML2", "CSQLite", "SalusFIT"]),
        // FIT files (watches and bike computers): the decoder, written from the protocol's public
        // description. Depends on nothing, not even Foundation.
        .target(name: "SalusFIT"),
        // FHIR R4: samples as Observations in a Bundle, streamed (salusctl export --format fhir).
        .target(name: "SalusFHIR", dependencies: ["SalusModel"]),

        // SQLite persistence.
        .target(
            name: "SalusStore",
            dependencies: [
                "SalusModel", "SalusProtoCodec", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Statistics and statistics collections over the store, merged across sources by priority.
        .target(
            name: "SalusStatistics",
            dependencies: ["SalusModel", "SalusStore", .product(name: "Logging", package: "swift-log")]
        ),
        // Saves numbered batches and prints each after its commit, for the crash-safety test.
        .executableTarget(
            name: "salus-store-crashtest",
            dependencies: ["SalusStore", "SalusModel", "SalusSoak", "CSQLite", .product(name: "Logging", package: "swift-log")]
        ),

        // The plugin ABI: salus_plugin.h, plain C, shared by the host, Swift plugins and C plugins.
        .target(name: "CSalusPlugin"),

        // Loads plugins (dlopen, never closed), checks their manifests, freezes the type registry.
        .target(
            name: "SalusPluginHost",
            dependencies: [
                "SalusModel", "SalusProto", "SalusWire", "CSalusPlugin",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),

        // For plugin authors: manifests from Swift values, the C entry, sample decoding. Depends
        // on nothing Swift beyond the standard library and SalusProtoCodec (plain values, no
        // state), so no module with state or run-time lookups is linked twice.
        .target(name: "SalusPluginKit", dependencies: ["CSalusPlugin", "SalusProtoCodec"]),

        // The bundled plugins.
        .target(name: "SalusCore", dependencies: ["SalusPluginKit"], path: "Plugins/Core"),
        .target(name: "SalusSleep", dependencies: ["SalusPluginKit"], path: "Plugins/Sleep"),
        .target(
            name: "SalusReproductive", dependencies: ["SalusPluginKit"], path: "Plugins/Reproductive"
        ),
        .target(name: "SalusMobility", dependencies: ["SalusPluginKit"], path: "Plugins/Mobility"),
        .target(name: "SalusVision", dependencies: ["SalusPluginKit"], path: "Plugins/Vision"),
        .target(
            name: "SalusWheelchair", dependencies: ["SalusPluginKit"], path: "Plugins/Wheelchair"
        ),
        .target(name: "SalusVitals", dependencies: ["SalusPluginKit"], path: "Plugins/Vitals"),
        .target(name: "SalusNutrition", dependencies: ["SalusPluginKit"], path: "Plugins/Nutrition"),
        .target(name: "SalusHearing", dependencies: ["SalusPluginKit"], path: "Plugins/Hearing"),
        .target(name: "SalusSymptoms", dependencies: ["SalusPluginKit"], path: "Plugins/Symptoms"),
        .target(name: "SalusLab", dependencies: ["SalusPluginKit"], path: "Plugins/Lab"),
        .target(name: "SalusMindfulness", dependencies: ["SalusPluginKit"], path: "Plugins/Mindfulness"),
        .target(name: "SalusClinical", dependencies: ["SalusPluginKit"], path: "Plugins/Clinical"),

        // The services, wired together.
        .target(
            name: "SalusServer",
            dependencies: [
                "SalusModel", "SalusProto", "SalusWire", "SalusRPC", "SalusStore", "SalusPluginHost",
                "SalusStatistics", "SalusImport", "SalusDocuments", "SalusProtoCodec", "CSalusMalloc", "CSalusPeer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // glibc's malloc tuning (mallopt), which Swift's Glibc module does not export.
        .target(name: "CSalusMalloc"),
        // pidfds and namespace ioctls, to identify a sandboxed app from its process.
        .target(name: "CSalusPeer"),

        // The Swift client library for apps.
        .target(
            name: "SalusKit",
            dependencies: [
                "SalusModel", "SalusProto", "SalusWire", "SalusRPC", "SalusProtoCodec",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        // The owner's client of the admin socket, as SalusKit is an app's of the app socket: apps,
        // consent, source priority, types, the report's data (SalusReport's model), typed and
        // documented; salusctl's commands call it.
        .target(
            name: "SalusAdmin",
            dependencies: [
                "SalusKit", "SalusModel", "SalusProto", "SalusWire", "SalusRPC", "SalusReport",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),

        // The owner's exports in open formats (JSON lines, CSV, an Apple Health zip, FHIR), written
        // by the admin client: `AdminClient.export`, what `salusctl export` calls. Apart from
        // SalusAdmin because it writes files with the importer's and the store's code.
        .target(
            name: "SalusExport",
            dependencies: [
                "SalusAdmin", "SalusKit", "SalusModel", "SalusImport", "SalusFHIR", "SalusStore",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // An example app: a sleep diary that saves, queries and follows sleep stages.
        .executableTarget(
            name: "SleepDiary",
            dependencies: ["SalusKit", "SalusModel"],
            path: "Examples/SleepDiary"
        ),
        // An example app: a weekly step chart kept current by an anchored query driving
        // statistics collections over just the changed days.
        .executableTarget(
            name: "WeeklyReport",
            dependencies: ["SalusKit", "SalusModel"],
            path: "Examples/WeeklyReport"
        ),
        // An example app: a glasses prescription saved with a scan of the paper, then read
        // back object by object as the owner grants.
        .executableTarget(
            name: "VisionCard",
            dependencies: ["SalusKit", "SalusModel"],
            path: "Examples/VisionCard"
        ),
        // An example app: a swim-bike-run recorded through a workout session and its builder,
        // then read back per activity and by a predicate on the running activities.
        .executableTarget(
            name: "Triathlon",
            dependencies: ["SalusKit", "SalusModel"],
            path: "Examples/Triathlon"
        ),

        .executableTarget(
            name: "salusd",
            dependencies: [
                "SalusServer", "SalusPluginHost",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What `salusctl report` and the terminal pictures show: nights, days and workouts gathered
        // from samples, the HTML page (Plot, with Chart.js inlined) and terminal bars and hypnograms.
        .target(
            name: "SalusReport",
            dependencies: ["SalusModel", .product(name: "Plot", package: "Plot")]
        ),
        .executableTarget(
            name: "salusctl",
            dependencies: [
                "SalusAdmin", "SalusExport", "SalusKit", "SalusRPC", "SalusProto", "SalusModel", "SalusWire", "SalusImport",
                "SalusStore", "SalusReport", "SalusSpawn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            // The Swift runtime and Foundation linked in, only the code salusctl uses: linked as
            // shared libraries they were most of salusctl's memory before it read a byte (29 MiB
            // resident at start, 26 of them the libraries' and its own pages; docs/import.md,
            // "Speed and memory"). salusctl loads no plugin, so no second runtime can come in.
            // The modules are compiled for the shared libraries, so the static libraries their
            // autolinking does not name are named here, and lld takes them in any order. The
            // toolchain's static arguments export every symbol (`-export-dynamic`), whose table
            // salusctl would read at start (4.5 MiB resident); a fully static Swift executable
            // exports none, so none is exported here either.
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib", "-use-ld=lld", "-l_FoundationICU", "-l_FoundationCollections", "-l_FoundationCShims",
                    "-lCoreFoundation", "-lswiftSynchronization", "-Xlinker", "--no-export-dynamic",
                ])
            ]
        ),

        // The system libdbus (the session bus, for desktop notifications).
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // Consent requests as desktop notifications: follows WatchRequests on the admin socket,
        // notifies through libdbus, answers the actions; salus-notify is its user service.
        .target(
            name: "SalusNotify",
            dependencies: [
                "CDBus", "SalusAdmin", "SalusProto", "SalusRPC", "SalusSpawn",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "salus-notify",
            dependencies: [
                "SalusNotify", "SalusRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Mirrors the anchored change feed of the granted types to PostgreSQL and saves the
        // server's inbox back into the store; salus-sync is its command line.
        .target(
            name: "SalusSync",
            dependencies: [
                "SalusKit", "SalusModel", "SalusProto", "SalusWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .executableTarget(
            name: "salus-sync",
            dependencies: [
                "SalusSync", "SalusKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `make bench`: the RPC layer beside raw Unix-socket baselines, the store beside raw SQLite,
        // the Apple Health import beside healthkit-to-sqlite, in one run.
        .executableTarget(
            name: "salus-bench",
            dependencies: [
                "SalusRPC", "SalusServer", "SalusKit", "SalusProto", "SalusStore", "SalusModel", "SalusStatistics", "SalusImport",
                "SalusSoak", "SalusSpawn", "SalusFIT",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/salus-bench"
        ),

        // `make soak`: many clients against one salusd, and the kill loop over salus-store-crashtest;
        // the load and its checks live in SalusSoak so that tests run them in process.
        .target(
            name: "SalusSoak",
            dependencies: [
                "SalusRPC", "SalusProto", "SalusStore", "SalusSpawn",
            ]
        ),
        // Child processes through posix_spawn, for the tools and tests that start programs.
        .target(name: "SalusSpawn", dependencies: ["CSalusSpawn"]),
        .target(name: "CSalusSpawn"),
        .executableTarget(
            name: "salus-soak",
            dependencies: ["SalusSoak", "SalusSpawn", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        .testTarget(
            name: "SalusRPCTests",
            dependencies: [
                "SalusRPC", "SalusProto", "SalusServer", "SalusTestSupport", "CSalusMalloc",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "SalusModelTests", dependencies: ["SalusModel"]),
        // The codec against SwiftProtobuf's bytes and against malformed input.
        .testTarget(
            name: "SalusProtoCodecTests",
            dependencies: [
                "SalusProtoCodec", "SalusProto", "SalusWire", "SalusModel", "SalusPluginKit",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .testTarget(name: "SalusDocumentsTests", dependencies: ["SalusDocuments", "SalusModel"]),
        // The FIT decoder against the figures of Garmin's FIT SDK (shared/data/fit/oracle.json),
        // synthetic files and malformed bytes.
        .testTarget(name: "SalusFITTests", dependencies: ["SalusFIT"]),
        .testTarget(
            name: "SalusImportTests",
            dependencies: ["SalusImport", "SalusModel", "SalusPluginHost", "CSQLite", .product(name: "Logging", package: "swift-log")]
        ),
        // Depends on salus-store-crashtest so that it is built for the crash-safety test.
        .testTarget(
            name: "SalusStoreTests",
            dependencies: [
                "SalusStore", "SalusModel", "salus-store-crashtest", "SalusTestSupport", "SalusWire", "SalusProto",
                "SalusSoak", "SalusKit", "SalusSpawn",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .testTarget(
            name: "SalusStatisticsTests",
            dependencies: ["SalusStatistics", "SalusStore", "SalusModel", "SalusTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "SalusKitTests", dependencies: ["SalusKit", "SalusModel", "SalusProto", "SalusWire"]),
        .testTarget(name: "SalusReportTests", dependencies: ["SalusReport", "SalusModel"]),
        // salus-sync's parts that need neither a daemon nor a server (those tests are in SalusDaemonTests/Sync*).
        .testTarget(name: "SalusSyncTests", dependencies: ["SalusSync", "SalusModel", "SalusProto", "SalusWire"]),
        .testTarget(name: "SalusSpawnTests", dependencies: ["SalusSpawn"]),
        .testTarget(name: "SalusWireTests", dependencies: ["SalusWire", "SalusModel", "SalusProto"]),
        // Loads the bundled plugins (built as products) and C fixtures compiled at test time.
        .testTarget(
            name: "SalusPluginHostTests",
            dependencies: [
                "SalusPluginHost", "SalusModel", "SalusProto", "SalusWire", "SalusTestSupport", "SalusSpawn",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        // Fixtures shared by the in-process and the end-to-end tests.
        .target(
            name: "SalusTestSupport",
            dependencies: ["SalusKit", "SalusModel", "SalusProto", "SalusRPC", "SalusSpawn"],
            path: "Tests/SalusTestSupport"
        ),
        // The services in process: the daemon's assembly over the in-process transport, with the
        // bundled plugins (built as products beside the test bundle).
        .testTarget(
            name: "SalusServerTests",
            dependencies: [
                "SalusServer", "SalusKit", "SalusRPC", "SalusProto", "SalusModel", "SalusWire", "SalusStore",
                "SalusPluginHost", "SalusTestSupport", "SalusImport", "SalusFHIR", "SalusSpawn", "SalusNotify", "SalusAdmin",
                "SalusReport", "SalusExport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The fuzzing harnesses' logic, one entry per decoder that takes bytes from outside
        // (`make fuzz`); always built, so the regression tests replay crash inputs through it.
        .target(
            name: "SalusFuzzing",
            dependencies: [
                "SalusModel", "SalusProto", "SalusWire", "SalusRPC", "SalusStore", "SalusPluginHost", "SalusServer",
                "SalusImport", "SalusDocuments", "SalusFIT",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        // Replays every committed crash input under Fuzz/regressions/ through its harness.
        .testTarget(name: "SalusFuzzingTests", dependencies: ["SalusFuzzing", "SalusModel", "SalusPluginHost", "SalusDocuments"]),
        .testTarget(
            name: "SalusDaemonTests",
            dependencies: [
                "SalusRPC", "SalusProto", "SalusKit", "SalusModel", "SalusWire", "SleepDiary", "WeeklyReport", "SalusImport",
                "VisionCard", "Triathlon", "SalusTestSupport", "SalusSoak", "SalusSync", "salus-sync",
                "SalusSpawn", "SalusAdmin",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` (SALUS_FUZZ=1): one libFuzzer executable per harness, `salus-fuzz-NAME`, whose
// main comes from libFuzzer; built only then, with `--sanitize=fuzzer --sanitize=address`.
if ProcessInfo.processInfo.environment["SALUS_FUZZ"] == "1" {
    for name in [
        "frames", "predicates", "units", "manifests", "metadata", "importer", "cda", "authorization", "restore", "fit", "gpxtcx",
        "gadgetbridge",
    ] {
        package.targets.append(.executableTarget(
            name: "salus-fuzz-\(name)",
            dependencies: ["SalusFuzzing"],
            path: "Fuzz/Targets/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ))
        package.products.append(.executable(name: "salus-fuzz-\(name)", targets: ["salus-fuzz-\(name)"]))
    }
}

// `make run` (SALUS_BUILD=run): only what running needs — salusd, salusctl, the bundled plugins and
// the example apps — so that a first `make run` compiles neither salus-sync's PostgreSQL client
// (with its TLS stack) nor the benchmarks, the soak and the tests. `make install`
// (SALUS_BUILD=install) adds salus-sync and salus-notify. Everything else is dropped from the package, with the
// dependencies only it uses.
if let selection = ProcessInfo.processInfo.environment["SALUS_BUILD"], ["run", "install"].contains(selection) {
    let plugins = package.products.compactMap { product in
        (product as? Product.Library)?.type == .dynamic ? product.name : nil
    }
    let tools = selection == "run" ? ["SleepDiary", "WeeklyReport", "VisionCard", "Triathlon"] : ["salus-sync", "salus-notify"]
    let roots = Set(["salusd", "salusctl"] + tools + plugins)
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var kept: Set<String> = []
    var usedPackages: Set<String> = []
    var pending = Array(roots)
    while let name = pending.popLast() {
        guard let target = byName[name], kept.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            case .productItem(_, let package, _, _): if let package { usedPackages.insert(package.lowercased()) }
            @unknown default: break
            }
        }
    }
    package.targets = package.targets.filter { kept.contains($0.name) }
    package.products = package.products.filter { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return targets.allSatisfy(kept.contains)
    }
    package.dependencies = package.dependencies.filter { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return true }
        let last = location.split(separator: "/").last.map(String.init) ?? location
        return usedPackages.contains(last.lowercased().replacingOccurrences(of: ".git", with: ""))
    }
}
