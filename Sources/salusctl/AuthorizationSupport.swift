import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire
import SwiftProtobuf

/// Calls to salus.v1.Consent and the small helpers the authorization commands share.
enum ConsentCalls {
    /// Runs one unary Consent call, turning an RPC error into its message.
    static func call<Request, Response>(
        _ client: RPCClient, _ method: UnaryMethod<Request, Response>, _ request: Request
    ) async throws -> Response {
        do {
            return try await client.unary(method, request: request)
        } catch let error as RPCError {
            throw CommandFailure(error.message)
        }
    }

    /// Full type identifiers for names or short names ("stepCount"), characteristics included;
    /// unknown names pass through for the daemon to refuse by name.
    static func resolveTypes(_ names: [String], client: RPCClient) async throws -> [String] {
        guard !names.isEmpty else { return [] }
        let types = try await client.listTypes()
        let identifiers = types.types.map(\.definition.identifier)
        return names.map { name in
            if identifiers.contains(name) { return name }
            let lowered = name.lowercased()
            let matches = identifiers.filter { identifier in
                identifier.lowercased() == lowered || Registry.shortNames(identifier).contains { $0.lowercased() == lowered }
            }
            return matches.count == 1 ? matches[0] : name
        }
    }

    /// "2s", "500ms", "1m", "1h" or plain seconds, in milliseconds.
    static func milliseconds(_ text: String, flag: String) throws -> Int64 {
        let units: [(String, Double)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value >= 0, let milliseconds = Int64(rounding: value * scale, .down) {
                return milliseconds
            }
        }
        if let value = Double(text), value >= 0, let milliseconds = Int64(rounding: value * 1_000, .down) { return milliseconds }
        throw CommandFailure("\(flag): '\(text)' is not a duration; expected a number with ms, s, m or h (500ms, 2s, 1m)")
    }

    static func uuid(_ text: String, flag: String) throws -> Data {
        guard let uuid = UUID(uuidString: text) else {
            throw CommandFailure("\(flag): '\(text)' is not a UUID; expected one such as 0190A5E2-7C41-7B1D-9F00-1234567890AB")
        }
        return WireUUID.bytes(uuid)
    }

    static func uuidText(_ bytes: Data) -> String { WireUUID.uuid(bytes)?.uuidString ?? "(\(bytes.count) bytes)" }

    static func decision(_ decision: Salus_V1_Decision) -> String {
        switch decision {
        case .granted: "granted"
        case .denied: "denied"
        default: "not determined"
        }
    }

    static func policy(_ policy: Salus_V1_Policy) -> String {
        let after = policy.afterMs > 0 ? " after \(policy.afterMs)ms" : ""
        switch policy.kind {
        case .ask: return "ask"
        case .grantAll: return "grant-all" + after
        case .denyAll: return "deny-all" + after
        case .grantListed:
            return "grant read [\(policy.read.joined(separator: ", "))] share [\(policy.share.joined(separator: ", "))]" + after
        default: return "unknown"
        }
    }

    /// How the app of a request was identified, as the owner reads it after its id: nothing
    /// for its own socket (salusctl launch), else how, and whether that is only a claim.
    static func identityNote(_ identity: String) -> String {
        switch identity {
        case "", "launcher", "owner": ""
        case "flatpak": ", identified by its Flatpak sandbox"
        case "unverified": ", unverified"
        default: ", identified by \(identity)"
        }
    }

    /// A pending request as the owner reads it.
    static func describe(_ request: Salus_V1_ConsentRequest) -> String {
        var lines = ["request \(request.id): \(request.appName) (\(request.appID)\(Self.identityNote(request.identity)))"]
        if !request.read.isEmpty {
            lines.append("  wants to read:  \(request.read.joined(separator: ", "))")
            lines.append("  because: \(request.readUsage)")
        }
        if !request.share.isEmpty {
            lines.append("  wants to write: \(request.share.joined(separator: ", "))")
            lines.append("  because: \(request.writeUsage)")
        }
        if !request.objectType.isEmpty {
            lines.append("  wants to read these \(request.objectType) objects (pick any):")
            for object in request.objects {
                let date = Date(timeIntervalSince1970: Double(object.startDate) / 1_000_000)
                lines.append("    \(uuidText(object.uuid))  from \(object.source)  \(date.formatted(.iso8601))")
            }
            if request.objects.isEmpty { lines.append("    (none match)") }
            lines.append("  because: \(request.readUsage)")
        }
        return lines.joined(separator: "\n")
    }
}

/// The message protocol of SwiftProtobuf, by a short name.
typealias SwiftProtobufMessage = SwiftProtobuf.Message
