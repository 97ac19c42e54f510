import Foundation
import SalusImport
import SalusModel

/// Apple Health exports: the bytes as an `export.xml`, fed to the streaming reader in two parts
/// (a document arrives in pieces), each top-level element mapped as the import maps it and each
/// sample checked against the catalog.
enum ImporterHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let catalog = FuzzEnvironment.catalog
        let mapper = RecordMapper(catalog: catalog)
        var samples: [Sample] = []
        let reader = ExportXMLReader { element in
            map(element, mapper: mapper, catalog: catalog, into: &samples)
        }
        let middle = bytes.count / 2
        do {
            try reader.feed(UnsafeRawBufferPointer(rebasing: bytes[..<middle]))
            try reader.feed(UnsafeRawBufferPointer(rebasing: bytes[middle...]))
            try reader.finish()
        } catch {
            _ = "\(error)"
        }
        for sample in samples {
            _ = catalog.validationErrors(of: sample, allowReadOnly: true).count
        }
    }

    /// What `ImportService` does with each element, without a store.
    static func map(_ element: ExportElement, mapper: RecordMapper, catalog: TypeCatalog, into samples: inout [Sample]) {
        do {
            switch element.name {
            case "Record":
                let sample = ImportIdentity.identified(try mapper.record(element).sample)
                samples.append(sample)
                if let series = try mapper.heartbeatSeries(element, record: sample) { samples.append(series) }
            case "Correlation":
                samples.append(try mapper.correlation(element))
            case "Workout":
                let workout = try mapper.workout(element)
                samples.append(workout)
                for route in try mapper.routes(of: element) {
                    samples.append(mapper.routeSample(route, locations: [], workout: workout.uuid))
                }
            case "Audiogram":
                samples.append(try mapper.audiogram(element))
            case "VisionPrescription":
                samples.append(try mapper.visionPrescription(element))
            case "ClinicalRecord":
                let fhir = Data(#"{"resourceType":"Observation","id":"1","status":"final","code":{"text":"x"}}"#.utf8)
                samples.append(try mapper.clinicalRecord(element, fhir: fhir))
            case "Me":
                _ = mapper.characteristics(element)
            case "ActivitySummary":
                _ = RecordMapper.activityGoals(element, previous: nil)
            default:
                break
            }
        } catch {
            _ = "\(error)"
        }
    }
}
