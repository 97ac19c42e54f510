import Foundation
import SalusModel
import SalusPluginHost
import SalusProto
import SalusWire

/// Unit strings: a parse, and for a unit that parses, its canonical text must parse back to an
/// equal unit, and conversions within its dimension must not trap.
enum UnitHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let unit = try? SalusUnit(parsing: text) else { return }
        let canonical = unit.description
        guard let again = try? SalusUnit(parsing: canonical) else {
            fatalError("the canonical text \"\(canonical)\" of the unit parsed from \"\(text)\" does not parse")
        }
        guard again == unit else {
            fatalError("the canonical text \"\(canonical)\" of \"\(text)\" parses to a different unit \"\(again)\"")
        }
        _ = unit.dimension
        _ = try? unit.convert(1.5, to: unit)
        _ = try? unit.convert(-2, to: again.reciprocal.reciprocal)
        for other in [SalusUnit.count, .gram, .meter, .second, .liter, .joule, .percent] {
            _ = try? unit.convert(1, to: other)
            _ = try? other.convert(1, to: unit)
        }
        _ = unit.multiplied(by: unit).description
        _ = unit.divided(by: unit).description
        _ = unit.raised(toPower: 3).description
        _ = unit.reciprocal.description
    }
}

/// Plugin manifests: decoded and checked as the host checks a loaded plugin's, once alone and
/// once after itself (the second time every identifier it declares is taken).
enum ManifestHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let manifest = Array(bytes)
        let report = PluginHost.check(manifests: [("libFuzzed.so", manifest), ("libFuzzedAgain.so", manifest)])
        _ = report.loaded.count + report.refused.count
        _ = report.refused.map(\.reason.message)
    }
}

/// Metadata values, in the sample that carries them: a `salus.v1.Sample` from the wire to the
/// model, then the catalog's whole check (typed metadata keys, required keys, units, allowed
/// values, and each plugin's validator).
enum MetadataHarness {
    static let source = SourceRevision(appID: "org.example.fuzz", name: "Fuzz")

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let catalog = FuzzEnvironment.catalog
        guard let wire = try? Salus_V1_Sample(serializedBytes: Array(bytes)) else { return }
        for (key, value) in wire.metadata {
            _ = try? MetadataValue(wire: value, path: "metadata.\(key)")
        }
        guard let sample = try? Sample(wire: wire, path: "sample", source: source, creationDate: Date(timeIntervalSince1970: 1_700_000_000)) else {
            return
        }
        _ = catalog.validationErrors(of: sample).map(\.description)
        _ = catalog.validationErrors(of: sample, allowReadOnly: true).count
        _ = sample.wire
    }
}
