import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import Testing

/// The owner's preferred units: set through the owner's client on the admin socket (what
/// `salusctl units` calls), read by apps, and the unit of statistics that name none; kept over
/// a restart of the daemon.
@Suite("Preferred units on a running daemon")
struct PreferredUnitTests {
    static let distance = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    static let getUnits = SalusMethods.Statistics.getPreferredUnits
    static let setUnit = SalusMethods.Statistics.setPreferredUnit

    static func walk(_ value: Double, _ unit: String, minute: Int64) -> Salus_V1_Sample {
        var sample = DaemonClients.stepSample(value, start: 1_790_000_000_000_000 + minute * 60_000_000, unit: unit)
        sample.type = distance
        return sample
    }

    static func units(_ client: RPCClient, _ types: [String]) async throws -> [Salus_V1_PreferredUnit] {
        let response: Salus_V1_PreferredUnits = try await client.unary(
            getUnits, request: Salus_V1_PreferredUnitsRequest.with { $0.types = types })
        return response.units
    }

    static func sum(_ client: RPCClient, unit: String = "") async throws -> Salus_V1_StatisticsResult {
        var request = Salus_V1_StatisticsRequest()
        request.type = distance
        request.options = [.cumulativeSum]
        request.unit = unit
        let response: Salus_V1_StatisticsResponse = try await client.unary(StatisticsDaemonTests.query, request: request)
        return response.statistics
    }

    @Test("the owner sets distance to km: apps read km, statistics without a unit come in km, an asked unit wins; kept over a restart")
    func preferredUnits() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let app = try await DaemonClients.app(daemon, "org.example.walk")
        let _: Salus_V1_SaveResponse = try await app.unary(
            DaemonClients.save, request: DaemonClients.saveRequest([Self.walk(1500, "m", minute: 0), Self.walk(2.5, "km", minute: 5)]))

        // Nothing chosen yet: the canonical unit, marked as such.
        let before = try await Self.units(app, [Self.distance])
        #expect(before.map(\.unit) == ["m"] && before.map(\.ownerSet) == [false])
        #expect(try await Self.sum(app).values.sum == 4000)
        let owner = try await AdminClient.connect(socketPath: daemon.adminSocketPath)
        #expect(try await owner.preferredUnits().isEmpty)

        let set = try await owner.setPreferredUnit("km", of: Self.distance)
        #expect(set == [PreferredUnit(type: Self.distance, unit: "km", isOwnerSet: true)])
        let after = try await Self.units(app, [Self.distance, DaemonClients.steps])
        #expect(after.map(\.unit) == ["km", "count"])
        #expect(after.map(\.ownerSet) == [true, false])
        #expect(try await owner.preferredUnits() == set)
        await owner.close()

        let inKilometres = try await Self.sum(app)
        #expect(inKilometres.unit == "km")
        #expect(abs(inKilometres.values.sum - 4) < 1e-9)
        let inMiles = try await Self.sum(app, unit: "mi")
        #expect(inMiles.unit == "mi")
        #expect(abs(inMiles.values.sum - 4000 / 1609.344) < 1e-9)

        await app.close()
        #expect(try await daemon.stop() == 0)
        let second = try await DaemonHarness.start(arguments: [
            "--dev", "--authorization", "open", "--data-dir", daemon.dataDirectory.path,
        ], bundledPlugins: true)
        let again = try await DaemonClients.app(second, "org.example.walk")
        #expect(try await Self.units(again, [Self.distance]).map(\.unit) == ["km"])
        let secondOwner = try await AdminClient.connect(socketPath: second.adminSocketPath)
        #expect(try await secondOwner.setPreferredUnit(nil, of: Self.distance) == [PreferredUnit(type: Self.distance, unit: "m", isOwnerSet: false)])
        await secondOwner.close()
        #expect(try await Self.sum(again).unit == "m")
        await again.close()
        #expect(try await second.stop() == 0)
    }

    @Test("refusals name the field: a unit of another dimension, a non-quantity type, an unknown type; apps cannot set")
    func refusals() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let owner = try await AdminClient.connect(socketPath: daemon.adminSocketPath)
        let wrong = await #expect(throws: SalusError.self) { try await owner.setPreferredUnit("kg", of: Self.distance) }
        #expect(wrong?.code == .invalidArgument)
        #expect(wrong?.message.contains("unit") == true && wrong?.message.contains("kg") == true && wrong?.message.contains("length") == true, "\(String(describing: wrong))")
        await owner.close()

        let admin = try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath)
        for (type, unit) in [("HKCategoryTypeIdentifierSleepAnalysis", "min"), ("HKQuantityTypeIdentifierNoSuchThing", "m")] {
            let error = await #expect(throws: RPCError.self) {
                let _: Salus_V1_PreferredUnits = try await admin.unary(
                    Self.setUnit, request: Salus_V1_PreferredUnit.with {
                        $0.type = type
                        $0.unit = unit
                    })
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("type") == true && error?.message.contains(type) == true, "\(String(describing: error))")
        }
        let unparsable = await #expect(throws: RPCError.self) {
            let _: Salus_V1_PreferredUnits = try await admin.unary(
                Self.setUnit, request: Salus_V1_PreferredUnit.with {
                    $0.type = Self.distance
                    $0.unit = "furlongs per fortnight"
                })
        }
        #expect(unparsable?.message.contains("furlongs") == true)
        let unknownAsked = await #expect(throws: RPCError.self) { _ = try await Self.units(admin, [Self.distance, "HKNope"]) }
        #expect(unknownAsked?.message.contains("types[1]") == true, "\(String(describing: unknownAsked))")
        #expect(try await Self.units(admin, []).isEmpty)

        let app = try await DaemonClients.app(daemon, "org.example.walk")
        let denied = await #expect(throws: RPCError.self) {
            let _: Salus_V1_PreferredUnits = try await app.unary(
                Self.setUnit, request: Salus_V1_PreferredUnit.with {
                    $0.type = Self.distance
                    $0.unit = "km"
                })
        }
        #expect(denied?.code == .unimplemented)
        #expect(try await Self.units(app, [Self.distance]).map(\.unit) == ["m"])
        await app.close()
        await admin.close()
        #expect(try await daemon.stop() == 0)
    }
}
