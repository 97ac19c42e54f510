import Foundation
import SalusModel

/// How a batch save treats what the caller sent.
package struct SaveOptions: Hashable, Sendable {
    /// Where the saved samples' UUIDs come from.
    package enum UUIDPolicy: Hashable, Sendable {
        /// The store assigns a new time-ordered UUID (`UUIDv7`) to every sample, whatever the
        /// sample carried: what apps get.
        case assign
        /// The store keeps each sample's UUID and refuses one that is already in the store (live
        /// or deleted) or repeated in the batch: for the owner's imports of the store's own
        /// exports.
        case keep
        /// A sample from the person's other stores (`SampleStore.saveReplicas`): the store keeps
        /// its UUID, source revision and creation date, skips it when the UUID is here already
        /// (live or deleted), and marks the change as a replica.
        case replica
    }

    /// Where UUIDs come from; `.assign` by default.
    package var uuidPolicy: UUIDPolicy
    /// The workout builder this save finishes: it is deleted, with the samples added to it, in
    /// the save's transaction, and the save is refused (`notFound`, naming `builderID`) when it
    /// no longer exists — so a builder is finished once, and a crash leaves the workout saved
    /// and the builder gone, or neither.
    package var finishingWorkoutBuilder: UUID?

    /// Creates options.
    package init(uuidPolicy: UUIDPolicy = .assign, finishingWorkoutBuilder: UUID? = nil) {
        self.uuidPolicy = uuidPolicy
        self.finishingWorkoutBuilder = finishingWorkoutBuilder
    }
}

/// What happened to one sample of a batch save.
package enum SaveOutcome: Hashable, Sendable {
    /// It was saved as a new sample.
    case saved
    /// A sample of the same app and type with the same sync identifier and an equal or higher
    /// sync version exists; nothing changed, and `SaveResult.uuid` is that sample's UUID.
    case keptExisting
    /// It replaced the sample with this UUID, which had the same sync identifier and a lower
    /// version; that sample is now a tombstone.
    case replaced(UUID)
    /// `.replica` only: a sample with this UUID is in the store already; nothing changed.
    case present
    /// `.replica` only: this store deleted the sample with this UUID; it stays deleted.
    case deletedHere
}

/// The result for one sample of a batch save.
package struct SaveResult: Hashable, Sendable {
    /// The saved sample's UUID, or the kept sample's UUID for `.keptExisting`.
    package var uuid: UUID
    /// What happened.
    package var outcome: SaveOutcome
    /// A saved correlation: one result per member, in the order given (a member kept by its
    /// sync identifier is the existing sample, which the correlation now holds). Empty for other
    /// samples and for a correlation that was `.keptExisting`, whose members were not saved.
    package var objects: [SaveResult]

    /// Creates a result.
    package init(uuid: UUID, outcome: SaveOutcome, objects: [SaveResult] = []) {
        self.uuid = uuid
        self.outcome = outcome
        self.objects = objects
    }
}

/// The result of a batch save.
package struct SaveResponse: Hashable, Sendable {
    /// One result per sample, in the order given.
    package var results: [SaveResult]
    /// The change-sequence position after the commit (the latest position when nothing changed).
    package var anchor: Anchor

    /// Creates a response.
    package init(results: [SaveResult], anchor: Anchor) {
        self.results = results
        self.anchor = anchor
    }
}

/// Who asks for a deletion.
package enum Requester: Hashable, Sendable {
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
package struct DeleteResponse: Hashable, Sendable {
    /// How many samples were deleted (each left a tombstone).
    package var deleted: Int
    /// The change-sequence position after the commit.
    package var anchor: Anchor

    /// Creates a response.
    package init(deleted: Int, anchor: Anchor) {
        self.deleted = deleted
        self.anchor = anchor
    }
}

/// The result of purging tombstones.
package struct PurgeResult: Hashable, Sendable {
    /// How many tombstones were removed.
    package var purged: Int
    /// The tombstone horizon after the purge: the lowest anchor still valid.
    package var horizon: Anchor

    /// Creates a result.
    package init(purged: Int, horizon: Anchor) {
        self.purged = purged
        self.horizon = horizon
    }
}
