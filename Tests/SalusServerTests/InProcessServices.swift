import Foundation
import Logging
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStore
import Synchronization
import Testing

@testable import SalusServer

/// The bundled plugins' type registry, loaded once per test process from the built products
/// beside the test executable (or `SALUS_PLUGIN_LIBRARY_DIR`).
enum BundledTypes {
    static let files = [
        "libSalusCore.so", "libSalusSleep.so", "libSalusReproductive.so", "libSalusMobility.so",
        "libSalusVision.so", "libSalusWheelchair.so",
    ]

    static let registry: TypeRegistry = {
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["SALUS_PLUGIN_LIBRARY_DIR"] { candidates.append(override) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(url.path)
                url = url.deletingLastPathComponent()
            }
        }
        guard let products = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/libSalusCore.so") }) else {
            fatalError("libSalusCore.so not found near the test executable (\(candidates)); build the plugin products first")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-server-tests-plugins-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            try! FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(file).path, withDestinationPath: products + "/" + file)
        }
        var logger = Logger(label: "salus-server-tests")
        logger.logLevel = .error
        return PluginHost.load(directories: [folder.path], logger: logger).registry
    }()
}

/// The store, authorization and consent services of a daemon, served in-process: each client is
/// a socketpair connection, so calls go through the same framing and routers as on a socket.
final class InProcessServices: Sendable {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"

    let folder: URL
    let server: RPCServer
    let store: SampleStore
    let engine: AuthorizationEngine
    let appRouter: RPCRouter
    let adminRouter: RPCRouter

    private init(folder: URL, server: RPCServer, store: SampleStore, engine: AuthorizationEngine, appRouter: RPCRouter, adminRouter: RPCRouter) {
        self.folder = folder
        self.server = server
        self.store = store
        self.engine = engine
        self.appRouter = appRouter
        self.adminRouter = adminRouter
    }

    /// Services over a new store in a temporary folder; authorization persists to
    /// `authorization.sqlite` there when `persistent`.
    static func start(persistent: Bool = false, logger: Logger? = nil) async throws -> InProcessServices {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var quiet = Logger(label: "salus-server-tests")
        quiet.logLevel = .error
        let logger = logger ?? quiet
        let registry = BundledTypes.registry
        let store = try await SampleStore.open(
            path: folder.appendingPathComponent("store.sqlite").path, catalog: registry.catalog, logger: logger)
        let engine = try AuthorizationEngine(
            registry: registry, developmentMode: false,
            databasePath: persistent ? folder.appendingPathComponent("authorization.sqlite").path : nil, logger: logger)
        let storeService = StoreService(store: store, registry: registry, authorization: engine)
        var appRouter = RPCRouter()
        storeService.register(into: &appRouter, owner: false)
        AuthorizationService(engine: engine, store: store).register(into: &appRouter)
        var adminRouter = RPCRouter()
        storeService.register(into: &adminRouter, owner: true)
        ConsentService(engine: engine) { appID in "/nonexistent/\(appID).sock" }.register(into: &adminRouter)
        return InProcessServices(
            folder: folder, server: RPCServer(logger: logger), store: store, engine: engine, appRouter: appRouter, adminRouter: adminRouter)
    }

    /// A client on the admin socket: the owner.
    func owner() async throws -> RPCClient {
        try await server.connectInProcess(router: adminRouter, listener: ListenerInfo(label: "admin"))
    }

    /// A client on the per-app socket of `appID` (identity known from the connection).
    func app(_ appID: String) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.clientName = appID
        return try await server.connectInProcess(
            router: appRouter, listener: ListenerInfo(label: "app", attributes: ["app-id": appID]), configuration: configuration)
    }

    /// Shuts the server down, closes the store and removes the folder.
    func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
        await store.close()
        engine.flush()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Calls

    static func consent(_ name: String) -> MethodDescriptor { MethodDescriptor(service: ConsentService.name, method: name) }

    /// Registers `appID` and sets its decisions for `type` (nil: not determined).
    static func register(_ owner: RPCClient, _ appID: String, type: String = steps, read: Salus_V1_Decision?, share: Salus_V1_Decision?) async throws {
        var add = Salus_V1_AddAppRequest()
        add.appID = appID
        add.name = "App \(appID)"
        add.readUsage = "to show trends"
        add.writeUsage = "to record what you log"
        let _: Salus_V1_AppInfo = try await owner.unary(consent("AddApp"), request: add)
        guard read != nil || share != nil else { return }
        var grant = Salus_V1_TypeGrant()
        grant.type = type
        grant.read = read ?? .notDetermined
        grant.share = share ?? .notDetermined
        var request = Salus_V1_SetGrantsRequest()
        request.appID = appID
        request.grants = [grant]
        let _: Salus_V1_AppInfo = try await owner.unary(consent("SetGrants"), request: request)
    }

    static func sample(_ type: String = steps, value: Double, start: Int64) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = start
        sample.endDate = start + 60_000_000
        sample.quantity.value = value
        sample.quantity.unit = type == heartRate ? "count/min" : "count"
        return sample
    }

    static func save(_ app: RPCClient, _ samples: [Salus_V1_Sample]) async throws -> Salus_V1_SaveResponse {
        var request = Salus_V1_SaveRequest()
        request.samples = samples
        return try await app.unary(StoreService.save, request: request)
    }

    static func descriptor(_ type: String = steps) -> Salus_V1_TypedPredicate {
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = type
        return descriptor
    }
}

/// The highest anchor a stream has delivered so far, and waits for one to arrive.
actor AnchorWaiter {
    private var latest: UInt64 = 0
    private var nextID = 0
    private var waiters: [Int: (target: UInt64, continuation: CheckedContinuation<Bool, Never>)] = [:]

    /// The highest anchor delivered.
    var highest: UInt64 { latest }

    /// Records a delivery at `anchor`.
    func record(_ anchor: UInt64) {
        latest = max(latest, anchor)
        for (id, waiter) in waiters where waiter.target <= latest {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Whether a delivery at or after `target` arrives within `timeout`.
    func wait(for target: UInt64, timeout: Duration = .seconds(3)) async -> Bool {
        if latest >= target { return true }
        let id = nextID
        nextID += 1
        return await withCheckedContinuation { continuation in
            waiters[id] = (target, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }
}

/// Values a background task records, read by the test.
final class Recorded<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    /// Everything recorded so far, in order.
    var items: [Element] { storage.withLock { $0 } }

    /// Records one value.
    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Records values in order.
    func append(contentsOf elements: [Element]) { storage.withLock { $0 += elements } }
}
