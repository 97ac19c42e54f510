import Foundation
import SalusProto
import SalusWire

/// What became of one sample of a save.
public struct SaveResult: Hashable, Sendable {
    /// What the daemon did with the sample.
    public enum Outcome: Hashable, Sendable {
        /// Saved as a new sample.
        case saved
        /// A sample with the same sync identifier and an equal or higher sync version exists;
        /// it was kept and ``SaveResult/uuid`` is its UUID.
        case keptExisting
        /// It replaced the sample with this UUID, which had the same sync identifier and a lower
        /// sync version.
        case replaced(UUID)
    }

    /// The UUID of the saved sample, or of the existing one that was kept.
    public var uuid: UUID
    /// What the daemon did.
    public var outcome: Outcome
    /// The change-sequence position of the save's commit: an anchored query from here sees
    /// only later changes.
    public var anchor: QueryAnchor
    /// A saved correlation: what became of each member, in the order given (each member is a
    /// sample of its own, with its own UUID). Empty for other samples, and for a correlation
    /// kept by its sync identifier, whose members were not saved.
    public var objects: [SaveResult]

    /// Creates a result.
    public init(uuid: UUID, outcome: Outcome, anchor: QueryAnchor, objects: [SaveResult] = []) {
        self.uuid = uuid
        self.outcome = outcome
        self.anchor = anchor
        self.objects = objects
    }

    init(wire: Salus_V1_SaveResult, path: String, anchor: QueryAnchor) throws(SalusError) {
        guard let uuid = WireUUID.uuid(wire.uuid) else {
            throw SalusError.malformed(field: "\(path).uuid", value: "\(wire.uuid.count) bytes", expected: "16 bytes")
        }
        let outcome: Outcome
        switch wire.outcome {
        case .saved: outcome = .saved
        case .keptExisting: outcome = .keptExisting
        case .replaced:
            guard let replaced = WireUUID.uuid(wire.replacedUuid) else {
                throw SalusError.malformed(
                    field: "\(path).replacedUuid", value: "\(wire.replacedUuid.count) bytes", expected: "16 bytes with REPLACED"
                )
            }
            outcome = .replaced(replaced)
        case .unspecified, .UNRECOGNIZED:
            throw SalusError.malformed(
                field: "\(path).outcome", value: "\(wire.outcome.rawValue)", expected: "SAVED, KEPT_EXISTING or REPLACED"
            )
        }
        var objects: [SaveResult] = []
        for (index, member) in wire.objects.enumerated() {
            objects.append(try SaveResult(wire: member, path: "\(path).objects[\(index)]", anchor: anchor))
        }
        self.init(uuid: uuid, outcome: outcome, anchor: anchor, objects: objects)
    }
}
