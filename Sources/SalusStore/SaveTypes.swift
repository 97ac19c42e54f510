import Foundation
import SalusModel

/// How a batch save treats what the caller sent.
public struct SaveOptions: Hashable, Sendable {
    /// Where the saved samples' UUIDs come from.
    public enum UUIDPolicy: Hashable, Sendable {
        /// The store assigns a new time-ordered UUID (`UUIDv7`) to every sample, whatever the
        /// sample carried: what apps get.
        case assign
        /// The store keeps each sample's UUID and refuses one that is already in the store (live
        /// or deleted) or repeated in the batch: for the owner's imports of the store's own
        /// exports.
        case keep
    }

    /// Where UUIDs come from; `.assign` by default.
    public var uuidPolicy: UUIDPolicy

    /// Creates options.
    public init(uuidPolicy: UUIDPolicy = .assign) {
        self.uuidPolicy = uuidPolicy
    }
}

/// What happened to one sample of a batch save.
public enum SaveOutcome: Hashable, Sendable {
    /// It was saved as a new sample.
    case saved
    /// A sample of the same app and type with the same sync identifier and an equal or higher
    /// sync version exists; nothing changed, and `SaveResult.uuid` is that sample's UUID.
    case keptExisting
    /// It replaced the sample with this UUID, which had the same sync identifier and a lower
    /// version; that sample is now a tombstone.
    case replaced(UUID)
}

/// The result for one sample of a batch save.
public struct SaveResult: Hashable, Sendable {
    /// The saved sample's UUID, or the kept sample's UUID for `.keptExisting`.
    public var uuid: UUID
    /// What happened.
    public var outcome: SaveOutcome

    /// Creates a result.
    public init(uuid: UUID, outcome: SaveOutcome) {
        self.uuid = uuid
        self.outcome = outcome
    }
}

/// The result of a batch save.
public struct SaveResponse: Hashable, Sendable {
    /// One result per sample, in the order given.
    public var results: [SaveResult]
    /// The change-sequence position after the commit (the latest position when nothing changed).
    public var anchor: Anchor

    /// Creates a response.
    public init(results: [SaveResult], anchor: Anchor) {
        self.results = results
        self.anchor = anchor
    }
}

/// Who asks for a deletion.
public enum Requester: Hashable, Sendable {
    /// An app: it may delete only samples whose source app id is this one.
    case app(String)
    /// The person who owns the data (`salusctl`): any sample.
    case owner

    /// The app asking, or nil for the owner.
    package var appID: String? {
        switch self {
        case .app(let appID): return appID
        case .owner: return nil
        }
    }
}

/// The result of a deletion.
public struct DeleteResponse: Hashable, Sendable {
    /// How many samples were deleted (each left a tombstone).
    public var deleted: Int
    /// The change-sequence position after the commit.
    public var anchor: Anchor

    /// Creates a response.
    public init(deleted: Int, anchor: Anchor) {
        self.deleted = deleted
        self.anchor = anchor
    }
}

/// The result of purging tombstones.
public struct PurgeResult: Hashable, Sendable {
    /// How many tombstones were removed.
    public var purged: Int
    /// The tombstone horizon after the purge: the lowest anchor still valid.
    public var horizon: Anchor

    /// Creates a result.
    public init(purged: Int, horizon: Anchor) {
        self.purged = purged
        self.horizon = horizon
    }
}
