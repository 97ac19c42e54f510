import Foundation
import SalusAdmin
import SalusProto

/// What the person sees of a consent request: the notification's fields, built from the
/// request alone.
package enum ConsentNotification {
    /// The action keys, in the order the notification lists them.
    package enum Action: String, Sendable, CaseIterable {
        /// A click on the notification itself: the same as Review.
        case `default`
        case allow
        case deny
        case review
    }

    /// The notification of `request`.
    ///
    /// - summary: the app's name as the owner registered it, its id, and the types asked for;
    /// - body: the usage texts, how the app was identified and whether that identity is strong;
    /// - actions: Allow (everything asked), Deny (nothing), Review (`salusctl consent watch`);
    /// - it never expires: the app waits for the answer.
    package static func make(_ request: Salus_V1_ConsentRequest) -> DesktopNotifications.Notification {
        DesktopNotifications.Notification(
            appName: "Salus",
            icon: icon(request.identityStrength),
            summary: summary(request),
            body: body(request),
            actions: ["default", "Review", "allow", "Allow", "deny", "Deny", "review", "Review"],
            hints: ["urgency": .byte(1), "category": .string("x-salus.consent")],
            expireTimeout: 0)
    }

    static func summary(_ request: Salus_V1_ConsentRequest) -> String {
        let app = request.appName.isEmpty || request.appName == request.appID
            ? request.appID : "\(request.appName) (\(request.appID))"
        var asks: [String] = []
        if !request.read.isEmpty && request.read == request.share {
            asks.append("to read and write \(list(request.read.map(typeName)))")
        } else {
            if !request.read.isEmpty { asks.append("to read \(list(request.read.map(typeName)))") }
            if !request.share.isEmpty { asks.append("to write \(list(request.share.map(typeName)))") }
        }
        if !request.objectType.isEmpty {
            asks.append("to read \(request.objects.count) \(typeName(request.objectType)) object\(request.objects.count == 1 ? "" : "s")")
        }
        return "\(app) asks \(asks.isEmpty ? "for nothing" : asks.joined(separator: " and "))"
    }

    static func body(_ request: Salus_V1_ConsentRequest) -> String {
        var lines: [String] = []
        if !(request.read.isEmpty && request.objectType.isEmpty) && !request.readUsage.isEmpty {
            lines.append("Reading: “\(request.readUsage)”")
        }
        if !request.share.isEmpty && !request.writeUsage.isEmpty {
            lines.append("Writing: “\(request.writeUsage)”")
        }
        lines.append(identity(request))
        // Servers that take markup in the body read &, < and > as markup.
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// How the app was identified, and whether that holds.
    static func identity(_ request: Salus_V1_ConsentRequest) -> String {
        ConsentRequest.identityDescription(request.identity, ConsentRequest.strength(request.identityStrength))
    }

    static func icon(_ strength: Salus_V1_IdentityStrength) -> String {
        switch strength {
        case .strong: "security-high"
        case .weak: "security-medium"
        case .unverified, .unspecified, .UNRECOGNIZED: "security-low"
        }
    }

    /// A type identifier as a person reads it: `HKQuantityTypeIdentifierStepCount` → StepCount,
    /// `HKWorkoutTypeIdentifier` → Workout; anything else as it is.
    package static func typeName(_ identifier: String) -> String {
        guard identifier.hasPrefix("HK"), let range = identifier.range(of: "TypeIdentifier") else { return identifier }
        let after = identifier[range.upperBound...]
        if !after.isEmpty { return String(after) }
        let before = identifier[identifier.index(identifier.startIndex, offsetBy: 2)..<range.lowerBound]
        return before.isEmpty ? identifier : String(before)
    }

    static func list(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: names[0]
        default: names.dropLast().joined(separator: ", ") + " and " + names.last!
        }
    }
}
