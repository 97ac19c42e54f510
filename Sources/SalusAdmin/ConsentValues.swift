import Foundation
import SalusKit
import SalusProto
import SalusWire

/// The owner's decision on one type, for reading or for writing.
public enum ConsentDecision: Sendable, Hashable {
    /// Never asked, or reset: the app's next request asks again.
    case notDetermined
    case denied
    case granted
}

/// What an app may do with one type.
public struct TypeGrant: Sendable, Hashable {
    /// The type identifier (HKQuantityTypeIdentifierStepCount).
    public var type: String
    public var read: ConsentDecision
    public var share: ConsentDecision

    public init(type: String, read: ConsentDecision = .notDetermined, share: ConsentDecision = .notDetermined) {
        self.type = type
        self.read = read
        self.share = share
    }
}

/// One object of a type authorized per object that an app may read.
public struct ObjectGrant: Sendable, Hashable {
    /// The type identifier (HKVisionPrescriptionTypeIdentifier).
    public var type: String
    public var uuid: UUID

    public init(type: String, uuid: UUID) {
        self.type = type
        self.uuid = uuid
    }
}

/// How the daemon answers an app's new requests.
public struct ConsentPolicy: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The request waits for the owner.
        case ask
        case grantAll
        case denyAll
        /// Grants the types in ``ConsentPolicy/read`` and ``ConsentPolicy/share``, denies the rest.
        case grantListed
    }

    public var kind: Kind
    /// Types granted for reading (``Kind/grantListed`` only).
    public var read: [String]
    /// Types granted for writing (``Kind/grantListed`` only).
    public var share: [String]
    /// Answers this many milliseconds after the request arrives (not with ``Kind/ask``).
    public var afterMilliseconds: Int64

    public init(_ kind: Kind, read: [String] = [], share: [String] = [], afterMilliseconds: Int64 = 0) {
        self.kind = kind
        self.read = read
        self.share = share
        self.afterMilliseconds = afterMilliseconds
    }

    /// Every request waits for the owner (the default).
    public static let ask = ConsentPolicy(.ask)
}

/// An object a per-object request offers the owner.
public struct RequestedObject: Sendable, Hashable {
    public var uuid: UUID
    /// The app that saved the object.
    public var source: String
    public var startDate: Date

    public init(uuid: UUID, source: String, startDate: Date) {
        self.uuid = uuid
        self.source = source
        self.startDate = startDate
    }
}

/// An app's authorization request, as the owner answers it.
public struct ConsentRequest: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case pending
        case answered
        /// Dropped by a reset or a removal of the app.
        case cancelled
    }

    /// How far the app's identity holds (docs/security.md).
    public enum IdentityStrength: Sendable, Hashable {
        case unspecified
        /// The owner's launch (the app's own socket) or its Flatpak sandbox.
        case strong
        /// What any program of the owner could set up as well (a systemd scope).
        case weak
        /// Declared by the app itself on a development daemon.
        case unverified
    }

    /// The id the answer names ("r1").
    public var id: String
    public var appID: String
    public var appName: String
    public var readUsage: String
    public var writeUsage: String
    /// Types the app asks to read, not yet answered.
    public var read: [String]
    /// Types the app asks to write, not yet answered.
    public var share: [String]
    /// For a per-object request: the type, else empty.
    public var objectType: String
    /// For a per-object request: the objects it may be granted.
    public var objects: [RequestedObject]
    public var state: State
    /// How the app is known: "launcher", "flatpak", "unverified", or empty.
    public var identity: String
    public var identityStrength: IdentityStrength
    public var created: Date
}

/// The owner's answer to a request: what is granted; everything else it asks is denied.
public struct ConsentAnswer: Sendable, Hashable {
    public var requestID: String
    public var grantRead: [String]
    public var grantShare: [String]
    public var objects: [UUID]

    public init(requestID: String, grantRead: [String] = [], grantShare: [String] = [], objects: [UUID] = []) {
        self.requestID = requestID
        self.grantRead = grantRead
        self.grantShare = grantShare
        self.objects = objects
    }

    /// Grants everything `request` asks.
    public static func all(_ request: ConsentRequest) -> ConsentAnswer {
        ConsentAnswer(requestID: request.id, grantRead: request.read, grantShare: request.share, objects: request.objects.map(\.uuid))
    }

    /// Grants nothing: every type and object `request` asks is denied.
    public static func nothing(_ request: ConsentRequest) -> ConsentAnswer {
        ConsentAnswer(requestID: request.id)
    }
}

/// A registered app, with its policy, its grants and its pending requests.
public struct AppInfo: Sendable, Hashable {
    public var appID: String
    public var name: String
    /// Why the app reads; empty: it may not ask to read.
    public var readUsage: String
    /// Why the app writes; empty: it may not ask to write.
    public var writeUsage: String
    public var policy: ConsentPolicy
    public var grants: [TypeGrant]
    public var objects: [ObjectGrant]
    public var pending: [ConsentRequest]
    /// The app's own socket, once a launch asked for one; else empty.
    public var endpoint: String
    /// The store's sync agent: it may save samples with another store's UUIDs and sources.
    public var isSyncAgent: Bool
    /// A weak identity (a systemd scope) is enough for this app (``AdminClient/setAcceptsWeakIdentity(_:_:)``).
    public var acceptsWeakIdentity: Bool = false
}

/// The source priority of a quantity type: merged statistics take an overlap from the first.
public struct SourcePriority: Sendable, Hashable {
    public var type: String
    /// App ids, highest first; empty: the most recently saved sample wins an overlap.
    public var sources: [String]

    public init(type: String, sources: [String]) {
        self.type = type
        self.sources = sources
    }
}

// MARK: - The wire

/// A response that breaks the protocol: a UUID not 16 bytes long.
func badUUID(_ bytes: Data, field: String) -> SalusError {
    SalusError(code: .invalidArgument, message: "\(field): the daemon sent \(bytes.count) bytes; expected a 16-byte UUID",
               field: field, value: "\(bytes.count) bytes", expected: "a 16-byte UUID")
}

func uuid(_ bytes: Data, field: String) throws -> UUID {
    guard let uuid = WireUUID.uuid(bytes) else { throw badUUID(bytes, field: field) }
    return uuid
}

extension ConsentDecision {
    init(_ decision: Salus_V1_Decision) {
        switch decision {
        case .granted: self = .granted
        case .denied: self = .denied
        default: self = .notDetermined
        }
    }

    var proto: Salus_V1_Decision {
        switch self {
        case .granted: .granted
        case .denied: .denied
        case .notDetermined: .notDetermined
        }
    }
}

extension ConsentPolicy {
    init(_ policy: Salus_V1_Policy) {
        let kind: Kind = switch policy.kind {
        case .grantAll: .grantAll
        case .denyAll: .denyAll
        case .grantListed: .grantListed
        default: .ask
        }
        self.init(kind, read: policy.read, share: policy.share, afterMilliseconds: policy.afterMs)
    }

    var proto: Salus_V1_Policy {
        var policy = Salus_V1_Policy()
        policy.kind = switch kind {
        case .ask: .ask
        case .grantAll: .grantAll
        case .denyAll: .denyAll
        case .grantListed: .grantListed
        }
        policy.read = read
        policy.share = share
        policy.afterMs = afterMilliseconds
        return policy
    }
}

extension ConsentRequest {
    /// How the app was identified and whether that holds, as the owner reads it: "Known by its
    /// Flatpak sandbox: strong identity." The one wording of `salusctl consent` and salus-notify.
    public var identityDescription: String { Self.identityDescription(identity, identityStrength) }

    /// ``identityDescription`` of `identity` ("launcher", "flatpak", ...) and `strength`.
    package static func identityDescription(_ identity: String, _ strength: IdentityStrength) -> String {
        let how = switch identity {
        case "launcher": "Known as launched by you (salusctl launch: its own socket)"
        case "sandboxedLaunch": "Known as launched by you in a sandbox (salusctl launch --sandbox: its own socket, nothing else of yours)"
        case "flatpak": "Known by its Flatpak sandbox"
        case "snap": "Known by its Snap confinement"
        case "scope": "Known only by the systemd scope the desktop started it in"
        case "unverified", "selfDeclared": "Known only by what it says of itself (development daemon)"
        case "owner": "Asked by you on the admin socket"
        case "": "Not said how it is known"
        default: "Known by \(identity)"
        }
        let holds = switch strength {
        case .strong: "strong identity"
        case .weak: "weak identity, any program of yours could claim it"
        case .unverified: "unverified, any program could claim it"
        case .unspecified: "strength not said"
        }
        return "\(how): \(holds)."
    }

    /// The strength the daemon sent.
    package static func strength(_ wire: Salus_V1_IdentityStrength) -> IdentityStrength {
        switch wire {
        case .strong: .strong
        case .weak: .weak
        case .unverified: .unverified
        default: .unspecified
        }
    }

    init(_ request: Salus_V1_ConsentRequest) throws {
        id = request.id
        appID = request.appID
        appName = request.appName
        readUsage = request.readUsage
        writeUsage = request.writeUsage
        read = request.read
        share = request.share
        objectType = request.objectType
        objects = try request.objects.map { object in
            RequestedObject(
                uuid: try uuid(object.uuid, field: "objects.uuid"), source: object.source,
                startDate: Date(timeIntervalSince1970: Double(object.startDate) / 1_000_000))
        }
        state = switch request.state {
        case .answered: .answered
        case .cancelled: .cancelled
        default: .pending
        }
        identity = request.identity
        identityStrength = Self.strength(request.identityStrength)
        created = Date(timeIntervalSince1970: Double(request.createdMs) / 1_000)
    }
}

extension AppInfo {
    init(_ app: Salus_V1_AppInfo) throws {
        appID = app.appID
        name = app.name
        readUsage = app.readUsage
        writeUsage = app.writeUsage
        policy = ConsentPolicy(app.policy)
        grants = app.grants.map { TypeGrant(type: $0.type, read: ConsentDecision($0.read), share: ConsentDecision($0.share)) }
        objects = try app.objects.map { ObjectGrant(type: $0.type, uuid: try uuid($0.uuid, field: "objects.uuid")) }
        pending = try app.pending.map(ConsentRequest.init)
        endpoint = app.endpoint
        isSyncAgent = app.syncAgent
        acceptsWeakIdentity = app.acceptsWeakIdentity
    }
}

extension ConsentRequest {
    var proto: Salus_V1_ConsentRequest {
        var request = Salus_V1_ConsentRequest()
        request.id = id
        request.appID = appID
        request.appName = appName
        request.readUsage = readUsage
        request.writeUsage = writeUsage
        request.read = read
        request.share = share
        request.objectType = objectType
        request.objects = objects.map { object in
            var requested = Salus_V1_RequestedObject()
            requested.uuid = WireUUID.bytes(object.uuid)
            requested.source = object.source
            requested.startDate = Int64((object.startDate.timeIntervalSince1970 * 1_000_000).rounded())
            return requested
        }
        request.state = switch state {
        case .pending: .pending
        case .answered: .answered
        case .cancelled: .cancelled
        }
        request.identity = identity
        request.identityStrength = switch identityStrength {
        case .unspecified: .unspecified
        case .strong: .strong
        case .weak: .weak
        case .unverified: .unverified
        }
        request.createdMs = Int64((created.timeIntervalSince1970 * 1_000).rounded())
        return request
    }
}

extension AppInfo {
    var proto: Salus_V1_AppInfo {
        var app = Salus_V1_AppInfo()
        app.appID = appID
        app.name = name
        app.readUsage = readUsage
        app.writeUsage = writeUsage
        app.policy = policy.proto
        app.grants = grants.map { grant in
            var typeGrant = Salus_V1_TypeGrant()
            typeGrant.type = grant.type
            typeGrant.read = grant.read.proto
            typeGrant.share = grant.share.proto
            return typeGrant
        }
        app.objects = objects.map { object in
            var objectGrant = Salus_V1_ObjectGrant()
            objectGrant.type = object.type
            objectGrant.uuid = WireUUID.bytes(object.uuid)
            return objectGrant
        }
        app.pending = pending.map(\.proto)
        app.endpoint = endpoint
        app.syncAgent = isSyncAgent
        app.acceptsWeakIdentity = acceptsWeakIdentity
        return app
    }
}
