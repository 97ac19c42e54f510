import Foundation

/// The fuzzing harnesses: one per decoder that takes bytes from outside the daemon. Each takes
/// any bytes; errors are the expected answer to garbage, and only a crash (a trap, a sanitizer
/// report, a connection left open) is a failure.
///
/// The `salus-fuzz-NAME` executables (built by `make fuzz` with libFuzzer and AddressSanitizer)
/// call ``run(_:)`` from `LLVMFuzzerTestOneInput`; `SalusFuzzingTests` replays the committed
/// crash inputs under `Fuzz/regressions/NAME/` through the same function.
package enum FuzzHarness: String, CaseIterable, Sendable {
    /// Bytes a client writes to the app socket: frames, envelopes and messages, through the
    /// server's frame decoder and dispatch to the daemon's services, in process.
    case frames
    /// A `salus.v1.Predicate` (after one byte choosing the queried type): wire to model, compiled
    /// to SQL and run against a store.
    case predicates
    /// A unit string: parsed, printed, parsed again and converted.
    case units
    /// A `salus.v1.PluginManifest`: decoded and checked as the plugin host checks a plugin's.
    case manifests
    /// A `salus.v1.Sample` with its metadata: wire to model and the catalog's whole check.
    case metadata
    /// An Apple Health `export.xml`: the streaming reader and the mapping of each element.
    case importer
    /// An HL7 CDA document: the check and the fields read from it.
    case cda
    /// Reads by an app denied some types, with a random predicate, in a store where those types
    /// hold data and in one where they hold none: the answers must be the same bytes.
    case authorization
    /// A backup archive restored with `--force` into a data folder inside a sandbox folder:
    /// nothing outside the data folder may change, nor the data folder when it is refused.
    case restore
    /// A FIT file (a watch's or bike computer's activity): the decoder, and what it returns
    /// holding together.
    case fit
    /// A GPX or TCX file (Strava's, Garmin Connect's exports): libxml2's reader under the
    /// import's limits and the mapping to workouts, routes and samples.
    case gpxtcx
    /// A Gadgetbridge export database: SQLite read-only from the bytes, every known table read.
    case gadgetbridge

    /// Runs the harness on one input.
    package func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .frames: FrameHarness.run(bytes)
        case .predicates: PredicateHarness.run(bytes)
        case .units: UnitHarness.run(bytes)
        case .manifests: ManifestHarness.run(bytes)
        case .metadata: MetadataHarness.run(bytes)
        case .importer: ImporterHarness.run(bytes)
        case .cda: CDAHarness.run(bytes)
        case .authorization: AuthorizationHarness.run(bytes)
        case .restore: RestoreHarness.run(bytes)
        case .fit: FITHarness.run(bytes)
        case .gpxtcx: GPXTCXHarness.run(bytes)
        case .gadgetbridge: GadgetbridgeHarness.run(bytes)
        }
    }

    /// Runs the harness on `data`.
    package func run(_ data: Data) {
        data.withUnsafeBytes { run($0) }
    }
}
