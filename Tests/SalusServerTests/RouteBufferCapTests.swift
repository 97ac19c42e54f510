import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusServer
import SalusTestSupport
import SalusWire
import Testing

/// A route being saved holds its locations in memory until the stream ends; they count against
/// the app's buffered bytes (docs/reliability.md, "Connections and streams have caps").
@Suite("Routes saved at once are bounded by the app's buffered bytes")
struct RouteBufferCapTests {
    @Test("a SaveRoute stream whose locations pass the app's buffered-bytes cap ends with RESOURCE_EXHAUSTED naming bufferedBytesPerApp; nothing is saved, what it held is released, and a route within the cap saves")
    func saveRouteOverCap() async throws {
        var limits = ClientLimits()
        limits.maxBufferedBytesPerApp = 1024 * 1024
        let server = try await ServerHarness.start(openAuthorization: true, limits: limits)
        defer { Task { await server.stop() } }
        let store = try await server.healthStore("org.example.run", name: "Run")
        let start = RouteServiceTests.start
        let workout = try await store.save(Sample(
            type: SampleType.workout.identifier, startDate: start, endDate: RouteServiceTests.at(30_000),
            value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource)).uuid
        let client = try await server.app("org.example.run")
        var header = Salus_V1_SaveRouteMessage()
        header.header.sample = Sample(
            type: SampleType.workoutRoute.identifier, startDate: start, endDate: start,
            value: .workoutRoute(WorkoutRouteValue(workoutUUID: workout, locationCount: 0)),
            sourceRevision: Sample.unsavedSource
        ).wire
        header.header.sample.uuid = Data()
        let locations = RouteServiceTests.locations(20_000)
        func save(_ count: Int) async throws -> Salus_V1_SaveRouteResponse {
            try await client.clientStreaming(SalusMethods.Routes.saveRoute) { (writer: RPCClientWriter<Salus_V1_SaveRouteMessage>) in
                try await writer.write(header)
                for offset in stride(from: 0, to: count, by: 1_000) {
                    var chunk = Salus_V1_SaveRouteMessage()
                    chunk.locations.locations = locations[offset..<min(count, offset + 1_000)].map(\.wire)
                    try await writer.write(chunk)
                }
            }
        }
        do {
            _ = try await save(20_000)
            Issue.record("20,000 locations were gathered under a cap of 1 MiB")
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted && error.detail?.field == "bufferedBytesPerApp", "\(error)")
            #expect(error.detail?.expected.contains("at most 1048576") == true, "\(error)")
        }
        #expect(try await RouteServiceTests.routes(store).isEmpty)
        try await waitUntil("the failed save's bytes are released") {
            server.services.server.bufferedBytes(ofApp: "org.example.run") == 0
        }
        _ = try await save(5_000)
        let routes = try await RouteServiceTests.routes(store)
        #expect(routes.count == 1)
        if let route = routes.first { #expect(try await store.routeLocations(of: route.uuid).collect().count == 5_000) }
        #expect(server.services.server.bufferedBytes(ofApp: "org.example.run") == 0)
    }
}
