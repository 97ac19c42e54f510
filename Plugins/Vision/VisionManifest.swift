import SalusPluginKit

/// Vision: the vision prescription type (read authorization per object; attachments limited to
/// still images and PDF) and its metadata key.
enum VisionManifest {
    static let visionPrescription = "HKVisionPrescriptionTypeIdentifier"

    static let manifest = PluginManifest(
        id: "org.salus.vision", name: "Salus Vision", version: "1.1.0",
        types: [
            TypeDefinition(identifier: visionPrescription, kind: .visionPrescription, displayName: "Vision prescriptions")
                .inArea("vision")
                .documenting(MetadataKeyUse("HKMetadataKeyGlassesPrescriptionDescription", .string))
                .readPerObject()
                // Still images and PDF; no video, no GIF (a Live Photo is stored as its key photo).
                .acceptingAttachments("image/jpeg", "image/png", "image/heic", "image/heif", "image/tiff", "application/pdf"),
        ],
        metadataKeys: [
            MetadataKeyDefinition("HKMetadataKeyGlassesPrescriptionDescription", .string,
                                  displayName: "Glasses prescription description"),
        ]
    )

    /// A prescription is a vision prescription value.
    @Sendable static func validate(_ sample: SampleView) -> SampleRefusal? {
        guard sample.type == visionPrescription else { return nil }
        guard case .visionPrescription = sample.value else {
            return SampleRefusal(field: "value", value: "\(sample.value)", expected: "a visionPrescription value")
        }
        return nil
    }
}
