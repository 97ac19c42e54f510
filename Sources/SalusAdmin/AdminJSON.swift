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

    static let options: JSONEncodingOptions = {
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        return options
    }()
}
