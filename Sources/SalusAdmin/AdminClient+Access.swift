import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// How an app reached a type, as the access log counts it.
public enum AccessKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Saved samples of the type.
    case write
    /// Deleted samples of the type.
    case delete
    /// Read through a sample query.
    case sampleQuery
    /// Read through an anchored query (the changes since an anchor, then done).
    case anchoredQuery
    /// Opened a live feed (a live anchored query).
    case liveFeed
    /// Observed the type's changes.
    case observer
    /// Read the type's sources.
    case sourceQuery
    /// Read a statistic or a statistics collection.
    case statistics

    init?(_ wire: Salus_V1_AccessKind) {
        switch wire {
        case .write: self = .write
        case .delete: self = .delete
        case .sampleQuery: self = .sampleQuery
        case .anchoredQuery: self = .anchoredQuery
        case .liveFeed: self = .liveFeed
        case .observer: self = .observer
        case .sourceQuery: self = .sourceQuery
        case .statistics: self = .statistics
        case .unspecified, .UNRECOGNIZED: return nil
        }
    }

    /// The verb a sentence uses: "read", "wrote", "deleted".
    public var verb: String {
        switch self {
        case .write: "wrote"
        case .delete: "deleted"
        default: "read"
        }
    }

    /// How, after the count: "through a live feed"; empty for writes and deletions.
    public var means: String {
        switch self {
        case .write, .delete: ""
        case .sampleQuery: "through a sample query"
        case .anchoredQuery: "through an anchored query"
        case .liveFeed: "through a live feed"
        case .observer: "by watching for changes"
        case .sourceQuery: "through a query of its sources"
        case .statistics: "through statistics"
        }
    }
}

/// One entry of the access log: what one app did to one type in one way within one hour. It
/// never holds a sample's value.
public struct AccessLogEntry: Sendable, Hashable, Codable {
    /// The app.
    public var appID: String
    /// The type identifier.
    public var type: String
    /// How.
    public var kind: AccessKind
    /// The start of the hour counted.
    public var hour: Date
    /// The first access within the hour.
    public var first: Date
    /// The last access within the hour.
    public var last: Date
    /// How many accesses (calls, not samples).
    public var count: Int
}

/// The access log as the owner reads it.
public struct AccessLogListing: Sendable, Hashable {
    /// The entries, newest last access first.
    public var entries: [AccessLogEntry]
    /// How long entries are kept.
    public var retention: Duration
}

/// What an app wrote of one type that the store still holds.
public struct AppTypeData: Sendable, Hashable, Codable {
    /// The type identifier.
    public var type: String
    /// How many samples.
    public var count: Int
    /// The earliest start.
    public var first: Date
    /// The latest end.
    public var last: Date
}

/// What an app wrote (or, after a deletion, what was deleted), per type.
public struct AppDataSummary: Sendable, Hashable, Codable {
    /// The app.
    public var appID: String
    /// Whether the app is registered (its samples outlive its registration).
    public var registered: Bool
    /// Per type, sorted by type.
    public var types: [AppTypeData]

    /// The samples in all types.
    public var total: Int { types.reduce(0) { $0 + $1.count } }
}

/// What part of an app's data a summary or a deletion covers.
public struct AppDataSelection: Sendable, Hashable {
    /// Only these types (identifiers); empty: every type the app wrote.
    public var types: [String]
    /// Only samples starting at or after this date.
    public var since: Date?
    /// Only samples starting before this date.
    public var until: Date?

    /// A selection; the defaults select everything the app wrote.
    public init(types: [String] = [], since: Date? = nil, until: Date? = nil) {
        self.types = types
        self.since = since
        self.until = until
    }
}

/// The access log and each app's own data (salus.v1.AccessLog, salus.v1.AppData).
extension AdminClient {
    /// The access log, newest last access first: only `appID`'s when given, only entries last
    /// used at or after `since` when given. Throws ``SalusError`` (``SalusError/Code/notFound``)
    /// for an app neither registered nor in the log.
    public func accessLog(appID: String? = nil, since: Date? = nil) async throws -> AccessLogListing {
        var request = Salus_V1_AccessLogRequest()
        request.appID = appID ?? ""
        request.since = since.map(Self.microseconds) ?? 0
        let response = try await call(SalusMethods.AccessLog.list, request)
        return AccessLogListing(
            entries: response.entries.compactMap { wire in
                guard let kind = AccessKind(wire.kind) else { return nil }
                return AccessLogEntry(
                    appID: wire.appID, type: wire.type, kind: kind, hour: Self.date(wire.hour), first: Self.date(wire.first),
                    last: Self.date(wire.last), count: Int(clamping: wire.count))
            },
            retention: .seconds(response.retentionSeconds))
    }

    /// How long the access log keeps entries.
    public func accessLogRetention() async throws -> Duration {
        .seconds(try await call(SalusMethods.AccessLog.getSettings, Salus_V1_AccessLogSettingsRequest()).retentionSeconds)
    }

    /// Sets how long the access log keeps entries (an hour to ten years, in whole seconds) and
    /// purges older entries at once. Throws ``SalusError`` (``SalusError/Code/invalidArgument``)
    /// outside that range.
    @discardableResult
    public func setAccessLogRetention(_ retention: Duration) async throws -> Duration {
        var settings = Salus_V1_AccessLogSettings()
        settings.retentionSeconds = retention.components.seconds
        return .seconds(try await call(SalusMethods.AccessLog.setSettings, settings).retentionSeconds)
    }

    /// What `appID` wrote that the store holds, per type. Throws ``SalusError``
    /// (``SalusError/Code/notFound``) for an app neither registered nor the source of any sample,
    /// or a type the app never wrote.
    public func appData(_ appID: String, _ selection: AppDataSelection = AppDataSelection()) async throws -> AppDataSummary {
        AppDataSummary(try await call(SalusMethods.AppData.summary, Self.request(appID, selection, dryRun: false)))
    }

    /// Deletes what `appID` wrote in `selection`, one transaction per type, leaving tombstones so
    /// every app's anchored feed and salus-sync see the deletions; returns what was deleted (with
    /// `dryRun`, what would be, deleting nothing). Throws ``SalusError``
    /// (``SalusError/Code/notFound``) for an unknown app, a type it never wrote, or a selection
    /// holding nothing; then nothing is deleted.
    public func deleteAppData(_ appID: String, _ selection: AppDataSelection = AppDataSelection(), dryRun: Bool = false)
        async throws -> AppDataSummary
    {
        AppDataSummary(try await call(SalusMethods.AppData.delete, Self.request(appID, selection, dryRun: dryRun)))
    }

    static func request(_ appID: String, _ selection: AppDataSelection, dryRun: Bool) -> Salus_V1_AppDataRequest {
        var request = Salus_V1_AppDataRequest()
        request.appID = appID
        request.types = selection.types
        if let since = selection.since { request.since = microseconds(since) }
        if let until = selection.until { request.until = microseconds(until) }
        request.dryRun = dryRun
        return request
    }

    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}

extension AppDataSummary {
    init(_ wire: Salus_V1_AppDataSummary) {
        appID = wire.appID
        registered = wire.registered
        types = wire.types.map { type in
            AppTypeData(
                type: type.type, count: Int(clamping: type.count), first: AdminClient.date(type.first),
                last: AdminClient.date(type.last))
        }
    }
}
