import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStore

/// salus.v1.Authorization, on app sockets: HealthKit's requestAuthorization,
/// getRequestStatusForAuthorization, authorizationStatus and requestPerObjectReadAuthorization.
package struct AuthorizationService: Sendable {

    /// The most objects one per-object request lists.
    static let maximumObjects = 1_000

    let engine: AuthorizationEngine
    let store: SampleStore

    /// The service over `engine`; `store` lists the objects of per-object requests.
    package init(engine: AuthorizationEngine, store: SampleStore) {
        self.engine = engine
        self.store = store
    }

    /// Adds the methods to an app socket's router.
    package func register(into router: inout RPCRouter) {
        router.registerUnary(SalusMethods.Authorization.requestAuthorization, onEventLoop: false) { (request: Salus_V1_AuthorizationRequest, context) in
            let caller = try Caller.resolve(context)
            try await authorizationCall { try await engine.requestAuthorization(caller, share: request.share, read: request.read) }
            var response = Salus_V1_AuthorizationResponse()
            response.handled = true
            return response
        }
        router.registerUnary(SalusMethods.Authorization.requestStatus, onEventLoop: false) { (request: Salus_V1_AuthorizationRequest, context) in
            let caller = try Caller.resolve(context)
            var response = Salus_V1_RequestStatusResponse()
            response.status = try await authorizationCall { try engine.requestStatus(caller, share: request.share, read: request.read) }.wire
            return response
        }
        router.registerUnary(SalusMethods.Authorization.authorizationStatus, onEventLoop: false) { (request: Salus_V1_AuthorizationStatusRequest, context) in
            let caller = try Caller.resolve(context)
            guard engine.registry.type(request.type) != nil else {
                throw RPCError.invalidArgument(field: "type", value: request.type, expected: "a registered type identifier (salusctl types)")
            }
            var response = Salus_V1_AuthorizationStatusResponse()
            response.status = engine.sharingStatus(caller, type: request.type).wire
            return response
        }
        router.registerUnary(SalusMethods.Authorization.requestPerObjectReadAuthorization, onEventLoop: false) { (request: Salus_V1_PerObjectReadRequest, context) in
            let caller = try Caller.resolve(context)
            try await authorizationCall { try engine.checkPerObjectRequest(caller, type: request.type) }
            let predicate = request.hasPredicate ? try modelPredicate(request.predicate) : nil
            let query = SampleQuery(
                type: TypeIdentifier(rawValue: request.type), predicate: predicate,
                sort: [SampleSortDescriptor(.startDate)], limit: Self.maximumObjects)
            let objects = try await storeCall {
                var objects: [RequestedObject] = []
                for try await page in try store.samples(query) {
                    objects += page.map { RequestedObject(uuid: $0.uuid, source: $0.sourceRevision.appID, startDate: $0.startDate) }
                }
                return objects
            }
            try await authorizationCall { try await engine.requestPerObjectReadAuthorization(caller, type: request.type, objects: objects) }
            var response = Salus_V1_AuthorizationResponse()
            response.handled = true
            return response
        }
    }
}
