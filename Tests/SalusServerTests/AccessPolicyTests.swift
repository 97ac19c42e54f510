import Foundation
import SalusModel
import SalusRPC
import SalusStore
import Testing

@testable import SalusServer

/// The access policy is a pure function of an app's record and the caller: each rule is checked
/// here as a table, without a store, a socket or a lock.
@Suite("Access policy")
struct AccessPolicyTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let steadiness = "HKQuantityTypeIdentifierAppleWalkingSteadiness"
    static let wheelchair = "HKCharacteristicTypeIdentifierWheelchairUse"
    static let vision = "HKVisionPrescriptionTypeIdentifier"
    static let appID = "org.example.app"

    static let types: [String: AccessRules] = [
        steps: AccessRules(),
        sleep: AccessRules(),
        steadiness: AccessRules(readOnlyForApps: true),
        wheelchair: AccessRules(isCharacteristic: true, readOnlyForApps: true),
        vision: AccessRules(perObjectRead: true),
    ]
    static let enforcing = AccessPolicy(open: false, types: types)
    static let open = AccessPolicy(open: true, types: types)

    static func caller(_ source: Caller.AppIDSource = .launcher, appID: String = appID) -> Caller {
        Caller(peer: PeerCredentials(pid: 1, uid: 1000, gid: 1000), appID: appID, appIDSource: source, appName: appID, appVersion: nil)
    }

    static func grants(read: Decision?, share: Decision?, type: String = steps) -> AppRecord {
        var record = AppRecord(id: appID, name: "App", readUsage: "to show trends", writeUsage: "to record")
        record.read[type] = read
        record.share[type] = share
        return record
    }

    static let decisions: [Decision?] = [nil, .granted, .denied]

    static func sample(_ type: String = steps, from appID: String) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: type), startDate: Date(timeIntervalSince1970: 0), endDate: Date(timeIntervalSince1970: 60),
            value: .quantity(Quantity(value: 1, unit: try! SalusUnit(parsing: "count"))),
            sourceRevision: SourceRevision(appID: appID, name: appID))
    }

    // MARK: Reading

    @Test("read access: read granted sees all, share granted only its own, neither nothing", arguments: decisions, decisions)
    func readAccess(read: Decision?, share: Decision?) {
        let record = Self.grants(read: read, share: share)
        let expected: ReadAccess =
            read == .granted ? .all : share == .granted ? .own(appID: Self.appID, objects: []) : .nothing
        #expect(Self.enforcing.readAccess(Self.caller(), type: Self.steps, grants: record) == expected)
        // Unverified (declared) app ids are held to the same rules.
        #expect(Self.enforcing.readAccess(Self.caller(.selfDeclared), type: Self.steps, grants: record) == expected)
        // The owner, and any caller of an open daemon, reads everything.
        #expect(Self.enforcing.readAccess(Self.caller(.owner, appID: "owner"), type: Self.steps, grants: nil) == .all)
        #expect(Self.open.readAccess(Self.caller(), type: Self.steps, grants: record) == .all)
        // A decision on another type changes nothing.
        #expect(Self.enforcing.readAccess(Self.caller(), type: Self.sleep, grants: record) == .nothing)
    }

    @Test("an unregistered app reads nothing")
    func unregistered() {
        #expect(Self.enforcing.readAccess(Self.caller(), type: Self.steps, grants: nil) == .nothing)
        #expect(Self.enforcing.sharingStatus(type: Self.steps, grants: nil) == .notDetermined)
    }

    @Test("a per-object type reads its own samples and the granted objects, whatever the type grants say")
    func perObject() {
        let object = UUID()
        var record = Self.grants(read: .granted, share: nil, type: Self.vision)
        #expect(Self.enforcing.readAccess(Self.caller(), type: Self.vision, grants: record) == .own(appID: Self.appID, objects: []))
        record.objects[Self.vision] = [object]
        #expect(Self.enforcing.readAccess(Self.caller(), type: Self.vision, grants: record) == .own(appID: Self.appID, objects: [object]))
    }

    @Test("a live batch keeps only what the caller may see now")
    func filter() {
        let result = AnchoredQueryResult(
            added: [Self.sample(from: Self.appID), Self.sample(from: "org.example.other")],
            deleted: [DeletedObject(uuid: UUID(), type: TypeIdentifier(rawValue: Self.steps))],
            anchor: Anchor(2), hasMore: false)
        let shareOnly = Self.grants(read: .denied, share: .granted)
        let (own, filtered) = Self.enforcing.filter(result, for: Self.caller(), grants: shareOnly)
        #expect(filtered)
        #expect(own.added.map(\.sourceRevision.appID) == [Self.appID])
        #expect(own.deleted.count == 1)
        let (none, _) = Self.enforcing.filter(result, for: Self.caller(), grants: Self.grants(read: nil, share: .denied))
        #expect(none.added.isEmpty && none.deleted.isEmpty)
        let (all, unfiltered) = Self.enforcing.filter(result, for: Self.caller(), grants: Self.grants(read: .granted, share: nil))
        #expect(!unfiltered && all == result)
        #expect(Self.enforcing.filter(result, for: Self.caller(.owner, appID: "owner"), grants: nil) == (result, false))
    }

    @Test("an observer that may read only its own samples of a type hears of that type only when it wrote it")
    func observedChanges() {
        let steps = TypeIdentifier(rawValue: Self.steps)
        let sleep = TypeIdentifier(rawValue: Self.sleep)
        var record = Self.grants(read: .denied, share: .granted)
        record.share[Self.sleep] = .granted
        let watched: Set<TypeIdentifier> = [steps, sleep]
        // Coalesced: the app wrote sleep, another app wrote steps.
        let event = CommitEvent(
            anchor: Anchor(9), changedTypes: [steps, sleep], writers: [steps: ["org.example.other"], sleep: [Self.appID]])
        #expect(Self.enforcing.observedChanges(event, watched: watched, caller: Self.caller(), grants: record) == [sleep])
        #expect(Self.enforcing.observedChanges(event, watched: [steps], caller: Self.caller(), grants: record) == [])
        // Full read hears of every change; no access hears of none; the owner's deletions name no app.
        record.read[Self.steps] = .granted
        #expect(Self.enforcing.observedChanges(event, watched: watched, caller: Self.caller(), grants: record) == [steps, sleep])
        #expect(Self.enforcing.observedChanges(event, watched: watched, caller: Self.caller(), grants: nil) == [])
        let ownerDeletion = CommitEvent(anchor: Anchor(10), changedTypes: [sleep])
        #expect(Self.enforcing.observedChanges(ownerDeletion, watched: watched, caller: Self.caller(), grants: record) == [])
    }

    // MARK: Writing

    @Test("share: granted writes, denied and not determined are refused naming the type", arguments: decisions, decisions)
    func share(read: Decision?, share: Decision?) {
        let record = Self.grants(read: read, share: share)
        let caller = Self.caller()
        switch share {
        case .granted:
            #expect(throws: Never.self) { try Self.enforcing.checkShare(caller, types: [Self.steps], grants: record) }
            #expect(Self.enforcing.sharingStatus(type: Self.steps, grants: record) == .authorized)
        case .denied:
            let error = #expect(throws: AccessError.self) { try Self.enforcing.checkShare(caller, types: [Self.steps], grants: record) }
            #expect(error?.code == .denied && error?.value == Self.steps && error?.field == "type")
            #expect(Self.enforcing.sharingStatus(type: Self.steps, grants: record) == .denied)
        case nil:
            let error = #expect(throws: AccessError.self) { try Self.enforcing.checkShare(caller, types: [Self.steps], grants: record) }
            #expect(error?.code == .notDetermined && error?.value == Self.steps)
            #expect(Self.enforcing.sharingStatus(type: Self.steps, grants: record) == .notDetermined)
        }
        #expect(throws: Never.self) { try Self.open.checkShare(caller, types: [Self.steps, Self.sleep], grants: nil) }
        #expect(Self.open.sharingStatus(type: Self.steps, grants: nil) == .authorized)
    }

    @Test("a batch of several types is refused naming the first refused type in order")
    func shareOrder() {
        var record = Self.grants(read: nil, share: .granted)
        record.share[Self.sleep] = .denied
        let error = #expect(throws: AccessError.self) {
            try Self.enforcing.checkShare(Self.caller(), types: [Self.steps, Self.sleep, "HKQuantityTypeIdentifierHeartRate"], grants: record)
        }
        #expect(error?.value == "HKCategoryTypeIdentifierSleepAnalysis" && error?.code == .denied)
    }

    // MARK: Requests

    @Test("a request names each refused field; only unanswered types are new")
    func requests() throws {
        let caller = Self.caller()
        let record = Self.grants(read: .granted, share: nil)
        func refusal(share: [String] = [], read: [String] = [], grants: AppRecord? = record) -> AccessError? {
            #expect(throws: AccessError.self) { _ = try Self.enforcing.newTypes(caller, share: share, read: read, grants: grants) }
        }
        #expect(refusal()?.field == "share")
        #expect(refusal(share: [Self.steps, "HKNoSuchType"])?.field == "share[1]")
        #expect(refusal(share: [Self.steadiness])?.expected.contains("computed by the system") == true)
        #expect(refusal(share: [Self.wheelchair])?.expected.contains("a characteristic") == true)
        #expect(refusal(read: [Self.vision])?.field == "read[0]")
        #expect(refusal(read: [Self.steps], grants: nil)?.code == .notRegistered)
        var silent = record
        silent.readUsage = ""
        silent.writeUsage = ""
        #expect(refusal(read: [Self.sleep], grants: silent)?.field == "readUsage")
        #expect(refusal(share: [Self.sleep], grants: silent)?.field == "writeUsage")

        let fresh = try Self.enforcing.newTypes(caller, share: [Self.steps, Self.steps, Self.sleep], read: [Self.steps, Self.sleep], grants: record)
        #expect(fresh.share == [Self.steps, Self.sleep])
        #expect(fresh.read == [Self.sleep])
        #expect(try Self.enforcing.requestStatus(caller, share: [], read: [Self.steps], grants: record) == .unnecessary)
        #expect(try Self.enforcing.requestStatus(caller, share: [Self.steps], read: [], grants: record) == .shouldRequest)
        #expect(try Self.open.requestStatus(caller, share: [Self.steps], read: [], grants: nil) == .unnecessary)
    }

    @Test("a per-object request needs a per-object type, a registered app and a read usage text")
    func perObjectRequest() {
        let caller = Self.caller()
        let record = Self.grants(read: nil, share: nil)
        #expect(throws: Never.self) { try Self.enforcing.checkPerObjectRequest(caller, type: Self.vision, grants: record) }
        let notPerObject = #expect(throws: AccessError.self) { try Self.enforcing.checkPerObjectRequest(caller, type: Self.steps, grants: record) }
        #expect(notPerObject?.field == "type")
        let unregistered = #expect(throws: AccessError.self) { try Self.enforcing.checkPerObjectRequest(caller, type: Self.vision, grants: nil) }
        #expect(unregistered?.code == .notRegistered)
    }

    @Test("an unregistered app known only by its desktop scope is told how a program run from a terminal is known, not only to register the terminal")
    func unregisteredScope() {
        // A program run from a terminal the desktop started is in the terminal's scope, so it
        // is known (weakly) as the terminal: the refusal must say so and name salusctl launch.
        let terminal = Self.caller(.scope, appID: "org.gnome.Terminal")
        let refusal = #expect(throws: AccessError.self) {
            _ = try Self.enforcing.newTypes(terminal, share: [], read: [Self.steps], grants: nil)
        }
        #expect(refusal?.code == .notRegistered)
        #expect(refusal?.message.contains("systemd scope") == true)
        #expect(refusal?.message.contains("salusctl launch --app ID -- COMMAND") == true)
        // A launched app's refusal does not talk of scopes.
        let launched = #expect(throws: AccessError.self) {
            _ = try Self.enforcing.newTypes(Self.caller(), share: [], read: [Self.steps], grants: nil)
        }
        #expect(launched?.message.contains("scope") == false)
    }
}
