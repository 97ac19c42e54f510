import SalusProto
import SwiftProtobuf

/// The admin values as JSON: the proto3 JSON mapping of their `salus.v1` messages, which
/// `salusctl --json` prints and scripts read. Raw values and 64-bit integers are numbers; as in
/// every proto3 JSON, a field at its zero value is omitted.
public enum AdminJSON {
    /// `{"apps": [...]}` (`salus.v1.ListAppsResponse`).
    public static func text(apps: [AppInfo]) throws -> String {
        var response = Salus_V1_ListAppsResponse()
        response.apps = apps.map(\.proto)
        return try response.jsonString(options: options)
    }

    /// One app (`salus.v1.AppInfo`).
    public static func text(app: AppInfo) throws -> String {
        try app.proto.jsonString(options: options)
    }

    /// `{"requests": [...]}` (`salus.v1.ListRequestsResponse`).
    public static func text(requests: [ConsentRequest]) throws -> String {
        var response = Salus_V1_ListRequestsResponse()
        response.requests = requests.map(\.proto)
        return try response.jsonString(options: options)
    }

    /// The registered types `types` (a selection of `listing.types`, all of them for the whole
    /// listing) with all of the listing's workout activity types and metadata keys: what
    /// `salusctl types --json` prints. Unlike proto3 JSON, every field is present, at its default
    /// value too (a raw value 0 as `"rawValue": 0`, an absent bound as `null`); keys are sorted.
    public static func text(types: [RegisteredType], of listing: TypeListing) throws -> String {
        try TypeListingJSON.text(of: listing, types: types)
    }

    /// The whole unit catalogue (`salus.v1.CatalogueResponse`: symbols, prefixes, units and
    /// types), as the daemon sent it: what `salusctl units list --json` prints.
    public static func text(catalogue: UnitCatalogue) throws -> String {
        try catalogue.proto.jsonString(options: options)
    }

    /// The daemon's Hello response (`salus.v1.HelloResponse`) in proto3 JSON, 64-bit integers as
    /// strings: what `salusctl status --json` prints.
    public static func text(status: DaemonStatus) throws -> String {
        try status.proto.jsonString()
    }

    /// One import event (`salus.v1.ImportEvent`): what `salusctl import --json` prints, a line
    /// per event.
    public static func text(importEvent event: ImportEvent) throws -> String {
        var message = Salus_V1_ImportEvent()
        switch event {
        case .progress(let progress): message.progress = progress.proto
        case .report(let report): message.report = report.proto
        }
        return try message.jsonString(options: options)
    }

    static let options: JSONEncodingOptions = {
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        return options
    }()
}
