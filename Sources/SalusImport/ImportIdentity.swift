import Foundation
import SalusModel

/// The sync identifier an imported sample is saved under: what stays the same from one export to
/// the next, so that the same history exported again (in summer or winter, in another zone, from
/// another phone) merges into what is there.
///
/// Apple writes every date with the UTC offset the phone had *at export time*, and the device
/// description as its own text, so neither the date text nor the device is part of it. What is:
/// - the instants of the start and end, in microseconds since 1970 (UTC);
/// - the value as a number: a quantity's figure (12 significant digits) and its unit in Salus's
///   canonical spelling, a category's raw value, a correlation's members (type and value, in
///   order), a workout's activity type, a heartbeat series' beat count;
/// - the metadata other than the sync keys, sorted by key, each value typed (dates as instants).
///
/// The type and the source are not written in it: sync identifiers are scoped per app id (one per
/// source of the export) and type. The identifier is a pure function of the `Sample`, so it can
/// be computed again from a stored sample: that is how samples imported before it existed (whose
/// identifiers held the date text, `legacy`) are recognised (docs/import.md, "Once, however
/// often").
///
/// A sync identifier is at most `Validation.maximumSyncIdentifierBytes` (1,024 bytes, UTF-8), and
/// the metadata in the text can make it longer: such a text is named by its SHA-256 instead,
/// `applehealth:v2|sha256:` and 64 lowercase hexadecimal digits (`bounded`). A text at or under
/// the limit is the identifier as it always was, so stores already imported into keep matching.
package enum ImportIdentity {
    /// The start of every identifier this function makes.
    package static let prefix = "applehealth:v2|"

    /// The identifier of `sample`: its identity text (`text(of:)`), or the digest of that text
    /// when it passes the sync identifier's limit.
    package static func identifier(of sample: Sample) -> String {
        bounded(text(of: sample), family: prefix)
    }

    /// `text` if it is at most `Validation.maximumSyncIdentifierBytes` bytes (UTF-8); else
    /// `family`, `sha256:` and the SHA-256 of all of `text` (UTF-8) in 64 lowercase hexadecimal
    /// digits. `family` is the start of the importer's identifiers (`applehealth:v2|`,
    /// `applehealth:` for audiograms and prescriptions, `gadgetbridge:v1|`), so a digest is never
    /// taken for another importer's identifier; it must be short enough for the result to stay
    /// within the limit. A readable text never has this form: its family is followed by a number,
    /// a date or a device and then more fields.
    package static func bounded(_ text: String, family: String) -> String {
        guard text.utf8.count > Validation.maximumSyncIdentifierBytes else { return text }
        var digest = SHA256Digest()
        digest.update(text.utf8)
        return family + "sha256:" + digest.hexDigest()
    }

    /// The full identity text of `sample` (`applehealth:v2|start|end|value|key=value…`),
    /// however long its metadata makes it.
    package static func text(of sample: Sample) -> String {
        var text = prefix
        text += "\(micros(sample.startDate))|\(micros(sample.endDate))|"
        text += value(sample.value)
        let keys = sample.metadata.keys.filter { $0 != MetadataKey.syncIdentifier && $0 != MetadataKey.syncVersion }.sorted()
        for key in keys {
            text += "|" + key + "=" + metadata(sample.metadata[key]!)
        }
        return text
    }

    /// `sample` with its identifier and sync version 1, unless it carries its own sync identifier.
    package static func identified(_ sample: Sample) -> Sample {
        var result = sample
        if case .correlation(var correlation) = result.value {
            correlation.objects = correlation.objects.map(identified)
            result.value = .correlation(correlation)
        }
        guard result.metadata[MetadataKey.syncIdentifier] == nil, result.metadata[MetadataKey.syncVersion] == nil else { return result }
        result.metadata[MetadataKey.syncIdentifier] = .string(identifier(of: result))
        result.metadata[MetadataKey.syncVersion] = .number(1)
        return result
    }

    /// Whether `identifier` is one an import made before identifiers rested on instants: it held
    /// the export's date text (`applehealth:2019-05-14 18:52:09 -0400|…`,
    /// `applehealth:beats|…`). Routes, electrocardiograms and clinical records were always named
    /// by what does not change, and keep their identifiers.
    package static func isLegacy(_ identifier: String) -> Bool {
        guard identifier.hasPrefix("applehealth:"), !identifier.hasPrefix(prefix) else { return false }
        for kept in ["applehealth:route|", "applehealth:ecg|", "applehealth:clinical|"] where identifier.hasPrefix(kept) { return false }
        return true
    }

    static func micros(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return value.isFinite && abs(value) < 9e18 ? Int64(value) : 0
    }

    /// `value` as C's `%.12g` writes it (what `String(format:)` wrote, through Foundation's
    /// formatter at a seventh of an import's mapping time; the text is part of stored
    /// identifiers, so it must not change).
    static func number(_ value: Double) -> String {
        // A whole number below 10^12 is its digits in %.12g (72 → "72"): most figures of an
        // export (steps, beats per minute, categories' metadata) take this path, not vsnprintf.
        // Negative zero is left to vsnprintf ("-0").
        if value == value.rounded(.towardZero), abs(value) < 1e12, !(value == 0 && value.sign == .minus) {
            return String(Int64(value))
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress!, 40, "%.12g", $0) }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(max(0, min(written, 39)))), as: UTF8.self)
        }
    }

    static func value(_ value: SampleValue) -> String {
        switch value {
        case .quantity(let quantity):
            return number(quantity.value) + " " + quantity.unit.description
        case .category(let raw):
            return "\(raw)"
        case .correlation(let correlation):
            return correlation.objects.map { $0.type.rawValue + "=" + Self.value($0.value) }.sorted().joined(separator: ";")
        case .workout(let workout):
            return "workout:\(workout.activityType)"
        case .heartbeatSeries(let series):
            return "beats:\(series.beats.count)"
        default:
            return ""
        }
    }

    static func metadata(_ value: MetadataValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(let figure): return number(figure)
        case .bool(let flag): return flag ? "1" : "0"
        case .date(let date): return "\(micros(date))"
        case .quantity(let quantity): return number(quantity.value) + " " + quantity.unit.description
        }
    }
}
