import Foundation

/// The owner's answer for one permission; a permission without one is "not determined".
package enum Decision: String, Codable, Sendable, Hashable {
    /// The owner allowed it.
    case granted
    /// The owner refused it.
    case denied
}

/// How new requests of an app are answered: by the owner (`ask`) or by a rule, for scenarios
/// and tests that must be repeatable.
package struct ConsentPolicy: Codable, Sendable, Hashable {
    /// What the rule does.
    package enum Kind: String, Codable, Sendable, Hashable {
        /// The owner answers (`salusctl consent`).
        case ask
        /// Everything asked is granted, objects included.
        case grantAll
        /// Everything asked is denied.
        case denyAll
        /// The listed types are granted, the rest denied.
        case grantListed
    }

    /// What the rule does.
    package var kind: Kind
    /// Types granted for reading (`grantListed`).
    package var read: [String]
    /// Types granted for sharing (`grantListed`).
    package var share: [String]
    /// How long after the request arrives the rule answers, in milliseconds.
    package var afterMilliseconds: Int64

    /// A policy.
    package init(kind: Kind, read: [String] = [], share: [String] = [], afterMilliseconds: Int64 = 0) {
        self.kind = kind
        self.read = read
        self.share = share
        self.afterMilliseconds = afterMilliseconds
    }

    /// The owner answers.
    package static let ask = ConsentPolicy(kind: .ask)
}

/// An app the owner registered, with its usage texts, policy and the owner's decisions.
package struct AppRecord: Codable, Sendable, Hashable {
    /// The app id (reverse DNS).
    package var id: String
    /// The name shown to the owner.
    package var name: String
    /// Why the app reads (HealthKit's NSHealthShareUsageDescription).
    package var readUsage: String
    /// Why the app writes (HealthKit's NSHealthUpdateUsageDescription).
    package var writeUsage: String
    /// How new requests are answered.
    package var policy: ConsentPolicy
    /// Read decisions by type identifier.
    package var read: [String: Decision]
    /// Share (write) decisions by type identifier.
    package var share: [String: Decision]
    /// Objects of per-object types the app may read, by type identifier.
    package var objects: [String: Set<UUID>]
    /// The owner made it the store's sync agent: it may save and delete replicas
    /// (salus.v1.Replica). Nil in records written before there were sync agents.
    package var syncAgent: Bool?

    /// The owner accepts a weak identity (a systemd scope) as this app. Nil in records
    /// written before there were weak identities.
    package var weakIdentity: Bool?

    /// Whether the app is the store's sync agent.
    package var isSyncAgent: Bool { syncAgent ?? false }

    /// Whether a caller known only by a weak identity (``Caller/isWeak``) gets this app's
    /// decisions; otherwise it gets ``undecided``.
    package var acceptsWeakIdentity: Bool { weakIdentity ?? false }

    /// The app as a caller it does not accept sees it: registered, asking the owner, nothing
    /// decided, no objects, not the sync agent.
    package var undecided: AppRecord {
        AppRecord(id: id, name: name, readUsage: readUsage, writeUsage: writeUsage)
    }

    /// A registered app with nothing decided.
    package init(id: String, name: String, readUsage: String, writeUsage: String) {
        self.id = id
        self.name = name
        self.readUsage = readUsage
        self.writeUsage = writeUsage
        self.policy = .ask
        self.read = [:]
        self.share = [:]
        self.objects = [:]
    }
}

/// One object listed in a per-object read request.
package struct RequestedObject: Codable, Sendable, Hashable {
    /// The sample's UUID.
    package var uuid: UUID
    /// The app that saved it.
    package var source: String
    /// Its start date.
    package var startDate: Date
}

/// A request waiting for the owner's answer.
package struct PendingRequest: Sendable, Hashable {
    /// The request's id ("r1", "r2", …), unique while the daemon runs.
    package var id: String
    /// The asking app.
    package var appID: String
    /// How the app is known: a ``Caller/AppIDSource`` raw value ("launcher", "flatpak",
    /// "scope"...) or "unverified".
    package var identity: String
    /// Types asked for sharing, not answered before.
    package var share: [String]
    /// Types asked for reading, not answered before.
    package var read: [String]
    /// The per-object type, for a per-object request.
    package var objectType: String?
    /// The objects listed, for a per-object request.
    package var objects: [RequestedObject]
    /// When the request arrived.
    package var created: Date
}

/// The owner's answer to a request.
package struct ConsentAnswer: Sendable, Hashable {
    /// Types granted for reading; the request's other read types are denied.
    package var grantRead: Set<String>
    /// Types granted for sharing; the request's other share types are denied.
    package var grantShare: Set<String>
    /// Objects granted; the request's other objects are not.
    package var objects: Set<UUID>

    /// An answer.
    package init(grantRead: Set<String> = [], grantShare: Set<String> = [], objects: Set<UUID> = []) {
        self.grantRead = grantRead
        self.grantShare = grantShare
        self.objects = objects
    }
}
