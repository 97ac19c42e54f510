import Foundation
import SalusAdmin
import SalusKit
import SalusModel

/// What the authorization commands share: parsing durations and UUIDs, and the owner's view of
/// a policy, a decision and a request.
enum ConsentCalls {
    /// "2s", "500ms", "1m", "1h" or plain seconds, in milliseconds (``ConsentPolicy/milliseconds(_:field:)``).
    static func milliseconds(_ text: String, flag: String) throws -> Int64 {
        do {
            return try ConsentPolicy.milliseconds(text, field: flag)
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    static func uuid(_ text: String, flag: String) throws -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw CommandFailure("\(flag): '\(text)' is not a UUID; expected one such as 0190A5E2-7C41-7B1D-9F00-1234567890AB")
        }
        return uuid
    }

    /// The policy a command-line word names ("grant-all"); `field` names where it came from
    /// (``ConsentPolicy/Kind/init(word:field:)``).
    static func policyKind(_ word: String, field: String) throws -> ConsentPolicy.Kind {
        do {
            return try ConsentPolicy.Kind(word: word, field: field)
        } catch let error as SalusError {
            throw CommandFailure(error.message)
        }
    }

    static func decision(_ decision: ConsentDecision) -> String {
        switch decision {
        case .granted: "granted"
        case .denied: "denied"
        case .notDetermined: "not determined"
        }
    }

    static func policy(_ policy: ConsentPolicy) -> String {
        let after = policy.afterMilliseconds > 0 ? " after \(policy.afterMilliseconds)ms" : ""
        switch policy.kind {
        case .ask: return "ask"
        case .grantAll: return "grant-all" + after
        case .denyAll: return "deny-all" + after
        case .grantListed:
            return "grant read [\(policy.read.joined(separator: ", "))] share [\(policy.share.joined(separator: ", "))]" + after
        }
    }

    /// How the app of a request was identified, as the owner reads it after its id: nothing
    /// for its own socket (salusctl launch), else how, and whether that is only a claim.
    /// A pending request as the owner reads it: who asks, how the app is known and whether that
    /// holds (the wording salus-notify shows too), then what it asks and why.
    static func describe(_ request: ConsentRequest) -> String {
        var lines = [
            "request \(request.id): \(request.appName) (\(request.appID))",
            "  \(request.identityDescription)",
        ]
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
                lines.append("    \(object.uuid.uuidString)  from \(object.source)  \(object.startDate.formatted(.iso8601))")
            }
            if request.objects.isEmpty { lines.append("    (none match)") }
            lines.append("  because: \(request.readUsage)")
        }
        return lines.joined(separator: "\n")
    }
}
