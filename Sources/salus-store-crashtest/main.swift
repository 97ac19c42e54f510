// salus-store-crashtest: runs numbered operations on a store one after the other and prints
// each number once its change has committed, so a test can kill it at any moment and check the
// database against what was acknowledged.
//
// Usage: salus-store-crashtest DATABASE FIRST OPERATIONS SIZE
// FIRST must be a multiple of 6. Operation n is, by n % 6 (`CrashOperation`):
//   0, 1  save: SIZE step samples, each with the metadata "batch" = n;
//   2     delete: the samples of operation n - 2, in one call;
//   3     sync replace: SIZE step samples with sync identifiers "sync-0"..."sync-(SIZE-1)" and
//         sync version n (replacing the earlier versions), each with "batch" = n;
//   4     workout finish: a workout builder `CrashOperation.builderID(n)` is saved, then finished
//         by a save of a workout and SIZE step samples, each with "batch" = n;
//   5     attachment upload: `CrashOperation.attachmentSize` bytes
//         (`CrashOperation.attachmentByte`) attached, named "batch-n", to the first sample of
//         operation n - 4.
// Output: "committed n" per operation, after its last commit.
//
// Usage: salus-store-crashtest migrate DATABASE
// Opens the store at DATABASE, migrating its schema; at each named point of a migration
// (`SampleStore.Configuration.migrationPoints`) prints "point NAME" and waits for a line on
// standard input before going on, so a test can kill it there. Prints "opened" at the end.
//
// Usage: salus-store-crashtest memory DATABASE
// Opens a new store at DATABASE, saves 1,000 step samples and prints "sqlite memory N": the
// bytes SQLite counts as allocated (0 when it does not count them), in a process where the
// store opened SQLite's first connection.
import CSQLite
import Foundation
import Logging
import SalusModel
import SalusSoak
import SalusStore

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "migrate" {
    var quiet = Logger(label: "salus.crashtest")
    quiet.logLevel = .warning
    let configuration = SampleStore.Configuration(migrationPoints: { point in
        FileHandle.standardOutput.write(Data("point \(point)\n".utf8))
        _ = readLine()
    })
    do {
        let store = try await SampleStore.open(
            path: arguments[2], catalog: TypeCatalog(types: []), configuration: configuration, logger: quiet)
        await store.close()
        FileHandle.standardOutput.write(Data("opened\n".utf8))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("salus-store-crashtest: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 3, arguments[1] == "memory" {
    var quiet = Logger(label: "salus.crashtest")
    quiet.logLevel = .warning
    let steps: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
    let catalog = TypeCatalog(types: [
        TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative)
    ])
    do {
        let store = try await SampleStore.open(path: arguments[2], catalog: catalog, logger: quiet)
        let source = SourceRevision(appID: "org.salus.crashtest", name: "Crash test")
        let samples = (0..<1_000).map { index in
            let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60)
            return Sample(
                type: steps, startDate: start, endDate: start + 60, value: .quantity(Quantity(value: Double(index), unit: .count)),
                sourceRevision: source)
        }
        _ = try await store.save(samples, source: source)
        FileHandle.standardOutput.write(Data("sqlite memory \(sqlite3_memory_used())\n".utf8))
        await store.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("salus-store-crashtest: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count == 5, let first = Int(arguments[2]), first % 6 == 0, let operations = Int(arguments[3]),
    let size = Int(arguments[4])
else {
    FileHandle.standardError.write(
        Data("usage: salus-store-crashtest DATABASE FIRST OPERATIONS SIZE (FIRST a multiple of 6)\n".utf8))
    exit(2)
}

let steps: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
let workoutType: TypeIdentifier = "HKWorkoutTypeIdentifier"
let catalog = TypeCatalog(types: [
    TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
    TypeRules(identifier: workoutType.rawValue, kind: .workout),
])
let appID = "org.salus.crashtest"
let source = SourceRevision(appID: appID, name: "Crash test")
var logger = Logger(label: "salus.crashtest")
logger.logLevel = .warning

func stepSamples(_ operation: Int, count: Int, sync: Bool = false) -> [Sample] {
    let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(operation))
    return (0..<count).map { index in
        var metadata: [String: MetadataValue] = ["batch": .number(Double(operation))]
        if sync {
            metadata[MetadataKey.syncIdentifier] = .string("sync-\(index)")
            metadata[MetadataKey.syncVersion] = .number(Double(operation))
        }
        return Sample(
            type: steps, startDate: start, endDate: start, value: .quantity(Quantity(value: Double(index), unit: .count)),
            sourceRevision: source, metadata: metadata)
    }
}

do {
    let store = try await SampleStore.open(path: arguments[1], catalog: catalog, logger: logger)
    // The samples each save of this process stored, for the deletes and attachments after it.
    var saved: [Int: [UUID]] = [:]
    for operation in first..<(first + operations) {
        switch operation % 6 {
        case 0, 1:
            let response = try await store.save(stepSamples(operation, count: size), source: source)
            saved[operation] = response.results.map(\.uuid)
        case 2:
            _ = try await store.delete(saved.removeValue(forKey: operation - 2) ?? [], requester: .app(appID))
        case 3:
            _ = try await store.save(stepSamples(operation, count: size, sync: true), source: source)
        case 4:
            let builder = CrashOperation.builderID(operation)
            try await store.saveWorkoutBuilder(id: builder, appID: appID, state: Array("operation \(operation)".utf8))
            let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(operation))
            let workout = Sample(
                type: workoutType, startDate: start, endDate: start.addingTimeInterval(60),
                value: .workout(Workout(activityType: 37).withDefaultActivity(start: start, end: start.addingTimeInterval(60))),
                sourceRevision: source, metadata: ["batch": .number(Double(operation))])
            _ = try await store.save(
                stepSamples(operation, count: size) + [workout], source: source,
                options: SaveOptions(finishingWorkoutBuilder: builder))
        default:
            let upload = try store.beginAttachment(maximumSize: Int64(CrashOperation.attachmentSize))
            let content = (0..<CrashOperation.attachmentSize).map { CrashOperation.attachmentByte(operation, $0) }
            var offset = 0
            while offset < content.count {
                try upload.append(content[offset..<min(content.count, offset + 16_384)])
                offset += 16_384
            }
            guard let target = saved.removeValue(forKey: operation - 4)?.first else {
                throw StoreError(code: .invalidArgument, message: "operation \(operation - 4) saved nothing")
            }
            _ = try await store.commitAttachment(
                upload, objectUUID: target, name: CrashOperation.attachmentName(operation), contentType: "application/octet-stream",
                appID: appID, metadata: [:])
        }
        FileHandle.standardOutput.write(Data("committed \(operation)\n".utf8))
    }
    await store.close()
} catch {
    FileHandle.standardError.write(Data("salus-store-crashtest: \(error)\n".utf8))
    exit(1)
}
