import Foundation
import SalusModel

/// Canonical text keys for deduplicated rows: every field in order, nil kept as JSON null, so
/// two devices (or source revisions) share a row exactly when every field is equal.
enum RowKeys {
    private static func encode(_ fields: [String?]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(fields), as: UTF8.self)) ?? ""
    }

    /// The key of a device.
    static func device(_ device: Device) -> String {
        encode([
            device.name, device.manufacturer, device.model, device.hardwareVersion, device.firmwareVersion,
            device.softwareVersion, device.localIdentifier, device.udiDeviceIdentifier,
        ])
    }

    /// The key of a source revision.
    static func source(_ source: SourceRevision) -> String {
        encode([source.appID, source.name, source.version, source.productType, source.osVersion])
    }
}
