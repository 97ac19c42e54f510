// salus-store-crashtest: saves numbered batches into a store and prints each batch number once
// its transaction has committed, so a test can kill it at any moment and check the database.
//
// Usage: salus-store-crashtest DATABASE FIRST-BATCH BATCHES BATCH-SIZE
// Every sample of batch n carries the metadata "batch" = n. Output: "committed n" per batch.
import Foundation
import Logging
import SalusModel
import SalusStore

let arguments = CommandLine.arguments
guard arguments.count == 5, let first = Int(arguments[2]), let batches = Int(arguments[3]),
    let size = Int(arguments[4])
else {
    FileHandle.standardError.write(Data("usage: salus-store-crashtest DATABASE FIRST-BATCH BATCHES BATCH-SIZE\n".utf8))
    exit(2)
}

let steps: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
let catalog = TypeCatalog(types: [TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative)])
let source = SourceRevision(appID: "org.salus.crashtest", name: "Crash test")
var logger = Logger(label: "salus.crashtest")
logger.logLevel = .warning

do {
    let store = try await SampleStore.open(path: arguments[1], catalog: catalog, logger: logger)
    for batch in first..<(first + batches) {
        let start = Date(timeIntervalSince1970: 1_700_000_000 + Double(batch))
        let samples = (0..<size).map { index in
            Sample(
                type: steps, startDate: start, endDate: start,
                value: .quantity(Quantity(value: Double(index), unit: .count)), sourceRevision: source,
                metadata: ["batch": .number(Double(batch))])
        }
        _ = try await store.save(samples, source: source)
        FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
    }
    await store.close()
} catch {
    FileHandle.standardError.write(Data("salus-store-crashtest: \(error)\n".utf8))
    exit(1)
}
