/// Every method of the `salus.v1` services, declared once: services register these, clients
/// call these, so no method name is typed twice. The names are those of `Protos/salus/v1/`.
package enum SalusMethods {
    /// `salus.v1.Session`: answered by every connection itself.
    package enum Session {
        package static let name = "salus.v1.Session"
        package static let hello = MethodDescriptor(service: name, method: "Hello")
    }

    /// `salus.v1.Diagnostics`: checks of the transport.
    package enum Diagnostics {
        package static let name = "salus.v1.Diagnostics"
        package static let echo = MethodDescriptor(service: name, method: "Echo")
        package static let generate = MethodDescriptor(service: name, method: "Generate")
        package static let collect = MethodDescriptor(service: name, method: "Collect")
        package static let echoStream = MethodDescriptor(service: name, method: "EchoStream")
        package static let sleep = MethodDescriptor(service: name, method: "Sleep")
    }

    /// `salus.v1.Store`: apps' samples.
    package enum Store {
        package static let name = "salus.v1.Store"
        package static let save = MethodDescriptor(service: name, method: "Save")
        package static let delete = MethodDescriptor(service: name, method: "Delete")
        package static let querySamples = MethodDescriptor(service: name, method: "QuerySamples")
        package static let queryAnchored = MethodDescriptor(service: name, method: "QueryAnchored")
        package static let observe = MethodDescriptor(service: name, method: "Observe")
        package static let querySources = MethodDescriptor(service: name, method: "QuerySources")
        package static let queryElectrocardiogramVoltages = MethodDescriptor(
            service: name, method: "QueryElectrocardiogramVoltages")
    }

    /// `salus.v1.Replica`: samples and deletions from the person's other stores, for the sync agent.
    package enum Replica {
        package static let name = "salus.v1.Replica"
        package static let save = MethodDescriptor(service: name, method: "Save")
        package static let delete = MethodDescriptor(service: name, method: "Delete")
    }

    /// `salus.v1.Statistics`: statistics and the owner's settings they follow.
    package enum Statistics {
        package static let name = "salus.v1.Statistics"
        package static let query = MethodDescriptor(service: name, method: "Query")
        package static let queryCollection = MethodDescriptor(service: name, method: "QueryCollection")
        package static let getSourcePriority = MethodDescriptor(service: name, method: "GetSourcePriority")
        package static let setSourcePriority = MethodDescriptor(service: name, method: "SetSourcePriority")
        package static let getPreferredUnits = MethodDescriptor(service: name, method: "GetPreferredUnits")
        package static let setPreferredUnit = MethodDescriptor(service: name, method: "SetPreferredUnit")
    }

    /// `salus.v1.Import`: Apple Health exports (admin socket).
    package enum Import {
        package static let name = "salus.v1.Import"
        package static let importAppleHealth = MethodDescriptor(service: name, method: "ImportAppleHealth")
        package static let importAppleHealthWithProgress = MethodDescriptor(service: name, method: "ImportAppleHealthWithProgress")
    }

    /// `salus.v1.Person`: characteristics and activity summaries.
    package enum Person {
        package static let name = "salus.v1.Person"
        package static let getCharacteristics = MethodDescriptor(service: name, method: "GetCharacteristics")
        package static let setCharacteristics = MethodDescriptor(service: name, method: "SetCharacteristics")
        package static let queryActivitySummaries = MethodDescriptor(service: name, method: "QueryActivitySummaries")
        package static let getActivitySettings = MethodDescriptor(service: name, method: "GetActivitySettings")
        package static let setActivitySettings = MethodDescriptor(service: name, method: "SetActivitySettings")
    }

    /// `salus.v1.Authorization`: an app's requests and status.
    package enum Authorization {
        package static let name = "salus.v1.Authorization"
        package static let requestAuthorization = MethodDescriptor(service: name, method: "RequestAuthorization")
        package static let requestStatus = MethodDescriptor(service: name, method: "RequestStatus")
        package static let authorizationStatus = MethodDescriptor(service: name, method: "AuthorizationStatus")
        package static let requestPerObjectReadAuthorization = MethodDescriptor(service: name, method: "RequestPerObjectReadAuthorization")
    }

    /// `salus.v1.Consent`: the owner's apps, grants and pending requests (admin socket).
    package enum Consent {
        package static let name = "salus.v1.Consent"
        package static let addApp = MethodDescriptor(service: name, method: "AddApp")
        package static let listApps = MethodDescriptor(service: name, method: "ListApps")
        package static let showApp = MethodDescriptor(service: name, method: "ShowApp")
        package static let resetApp = MethodDescriptor(service: name, method: "ResetApp")
        package static let removeApp = MethodDescriptor(service: name, method: "RemoveApp")
        package static let setPolicy = MethodDescriptor(service: name, method: "SetPolicy")
        package static let setGrants = MethodDescriptor(service: name, method: "SetGrants")
        package static let withdrawObjects = MethodDescriptor(service: name, method: "WithdrawObjects")
        package static let grantObjects = MethodDescriptor(service: name, method: "GrantObjects")
        package static let listRequests = MethodDescriptor(service: name, method: "ListRequests")
        package static let answerRequest = MethodDescriptor(service: name, method: "AnswerRequest")
        package static let watchRequests = MethodDescriptor(service: name, method: "WatchRequests")
        package static let createAppEndpoint = MethodDescriptor(service: name, method: "CreateAppEndpoint")
        package static let setSyncAgent = MethodDescriptor(service: name, method: "SetSyncAgent")
    }

    /// `salus.v1.Admin`: the owner's view of plugins and types (admin socket).
    package enum Admin {
        package static let name = "salus.v1.Admin"
        package static let listPlugins = MethodDescriptor(service: name, method: "ListPlugins")
        package static let listTypes = MethodDescriptor(service: name, method: "ListTypes")
    }

    /// `salus.v1.Catalogue`: the daemon's units and types, for any caller on either socket.
    package enum Catalogue {
        package static let name = "salus.v1.Catalogue"
        package static let get = MethodDescriptor(service: name, method: "Get")
    }

    /// `salus.v1.Routes`: workout routes, streamed both ways.
    package enum Routes {
        package static let name = "salus.v1.Routes"
        package static let saveRoute = MethodDescriptor(service: name, method: "SaveRoute")
        package static let readRoute = MethodDescriptor(service: name, method: "ReadRoute")
    }

    /// `salus.v1.Attachments`: files attached to objects (HealthKit's `HKAttachmentStore`).
    package enum Attachments {
        package static let name = "salus.v1.Attachments"
        package static let add = MethodDescriptor(service: name, method: "Add")
        package static let list = MethodDescriptor(service: name, method: "List")
        package static let read = MethodDescriptor(service: name, method: "Read")
        package static let remove = MethodDescriptor(service: name, method: "Remove")
    }
}
