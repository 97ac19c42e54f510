import CSalusMalloc
import Foundation
import NIOCore
import SalusProto
import SalusRPC
import SwiftProtobuf
import Testing

/// The estimate of what a request takes once decoded (`DecodingBudget`), against what decoding
/// it allocates, and the requests it refuses and takes.
@Suite("The memory a request takes once decoded", .serialized)
struct DecodingBudgetTests {
    /// The bytes decoding `bytes` as `M` allocates and keeps while the message lives.
    static func allocated<M: SwiftProtobuf.Message>(_ type: M.Type, _ bytes: [UInt8]) throws -> Int {
        let before = salus_malloc_allocated_bytes()
        let message = try M(serializedBytes: bytes)
        let after = salus_malloc_allocated_bytes()
        withExtendedLifetime(message) {}
        return Int(after) - Int(before)
    }

    static func estimate<M: SwiftProtobuf.Message>(_ type: M.Type, _ bytes: [UInt8], limit: Int = .max) -> DecodingBudget.Estimate {
        bytes.withUnsafeBytes { DecodingBudget.estimate(M.self, $0, limit: limit) }
    }

    static func within(_ estimate: DecodingBudget.Estimate) -> Int? {
        if case .within(let bytes) = estimate { return bytes }
        return nil
    }

    /// Lists of `count` empty elements (or of the smallest they can be) in every list a request
    /// from an app can make long.
    struct List {
        var label: String
        /// The dotted path of the list's field.
        var field: String
        var bytes: () throws -> [UInt8]
        var estimate: ([UInt8], Int) -> DecodingBudget.Estimate
        var allocated: ([UInt8]) throws -> Int
    }

    static func lists(count: Int) -> [List] {
        func entry<M: SwiftProtobuf.Message>(_ label: String, _ field: String, _ type: M.Type, _ make: @escaping () -> M) -> List {
            List(
                label: label, field: field, bytes: { try make().serializedBytes() },
                estimate: { estimate(M.self, $0, limit: $1) }, allocated: { try allocated(M.self, $0) })
        }
        return [
            entry("a query's or of empty predicates", "predicate.or.predicates", Salus_V1_SampleQueryRequest.self) {
                var request = Salus_V1_SampleQueryRequest()
                request.predicate.or.predicates = Array(repeating: Salus_V1_Predicate(), count: count)
                return request
            },
            entry("a query's empty sort descriptors", "sort", Salus_V1_SampleQueryRequest.self) {
                var request = Salus_V1_SampleQueryRequest()
                request.sort = Array(repeating: Salus_V1_SortDescriptor(), count: count)
                return request
            },
            entry("an anchored query's empty descriptors", "descriptors", Salus_V1_AnchoredQueryRequest.self) {
                var request = Salus_V1_AnchoredQueryRequest()
                request.descriptors = Array(repeating: Salus_V1_TypedPredicate(), count: count)
                return request
            },
            entry("a request's empty metadata", "metadata", Salus_V1_Request.self) {
                var request = Salus_V1_Request()
                request.metadata = Array(repeating: Salus_V1_KeyValue(), count: count)
                return request
            },
            entry("a route chunk's empty locations", "locations.locations", Salus_V1_SaveRouteMessage.self) {
                var message = Salus_V1_SaveRouteMessage()
                message.locations.locations = Array(repeating: Salus_V1_RouteLocation(), count: count)
                return message
            },
            entry("a replica save's empty samples", "samples", Salus_V1_ReplicaSaveRequest.self) {
                var request = Salus_V1_ReplicaSaveRequest()
                request.samples = Array(repeating: Salus_V1_Sample(), count: count)
                return request
            },
            entry("an electrocardiogram's empty voltages", "electrocardiogram.voltages", Salus_V1_Sample.self) {
                var sample = Salus_V1_Sample()
                sample.electrocardiogram.voltages = Array(repeating: Salus_V1_ElectrocardiogramVoltage(), count: count)
                return sample
            },
            entry("a heartbeat series' empty beats", "heartbeat_series.beats", Salus_V1_Sample.self) {
                var sample = Salus_V1_Sample()
                sample.heartbeatSeries.beats = Array(repeating: Salus_V1_Heartbeat(), count: count)
                return sample
            },
            entry("a workout's empty events", "workout.events", Salus_V1_Sample.self) {
                var sample = Salus_V1_Sample()
                sample.workout.events = Array(repeating: Salus_V1_WorkoutEvent(), count: count)
                return sample
            },
            entry("a sample's metadata, one-letter keys", "metadata", Salus_V1_Sample.self) {
                var sample = Salus_V1_Sample()
                for index in 0..<count { sample.metadata["\(index)"] = Salus_V1_MetadataValue() }
                return sample
            },
            entry("grants of no type", "grants", Salus_V1_SetGrantsRequest.self) {
                var request = Salus_V1_SetGrantsRequest()
                request.grants = Array(repeating: Salus_V1_TypeGrant(), count: count)
                return request
            },
            entry("statistics options, packed", "options", Salus_V1_StatisticsRequest.self) {
                var request = Salus_V1_StatisticsRequest()
                request.options = Array(repeating: .discreteAverage, count: count)
                return request
            },
            entry("a deletion's empty UUIDs", "uuids.uuids", Salus_V1_DeleteRequest.self) {
                var request = Salus_V1_DeleteRequest()
                request.uuids.uuids = Array(repeating: Data(), count: count)
                return request
            },
            entry("a characteristics request's empty types", "types", Salus_V1_CharacteristicsRequest.self) {
                var request = Salus_V1_CharacteristicsRequest()
                request.types = Array(repeating: "", count: count)
                return request
            },
        ]
    }

    /// The lists whose estimate is not within half and four times what decoding them allocates,
    /// each with its figures (nothing when all are).
    static func estimatesOffAllocations() throws -> [String] {
        var off: [String] = []
        for (index, small) in lists(count: 1_000).enumerated() {
            guard let thousand = within(small.estimate(try small.bytes(), .max)) else {
                off.append("\(small.label): not within")
                continue
            }
            // As many elements as estimate to 1 to 2 MB, a power of two: a list grows by
            // doubling, so it holds no room to spare then. (With room to spare a list can take up
            // to twice its elements' bytes: the limit's margin.)
            var count = 1
            while count * 2 * max(1, thousand / 1_000) <= 2 << 20 { count *= 2 }
            let list = lists(count: count)[index]
            let bytes = try list.bytes()
            guard let estimate = within(list.estimate(bytes, .max)) else {
                off.append("\(list.label): not within")
                continue
            }
            let allocated = try list.allocated(bytes)
            if !(allocated <= 2 * estimate && estimate <= 4 * allocated) {
                off.append("\(list.label): \(allocated) bytes allocated, \(estimate) estimated")
            }
        }
        return off
    }

    @Test("the estimate of each long list of empty elements (1 to 2 MB of them, a power of two) is at least half of what decoding it allocates, and at most four times (measured in a process of its own, where no other test allocates meanwhile)")
    func estimatesFollowAllocations() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let off = try DecodingBudgetTests.estimatesOffAllocations()
            if !off.isEmpty {
                FileHandle.standardError.write(Data(off.joined(separator: "\n").utf8))
                exit(1)
            }
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test("past the limit, the estimate names the list where it went past")
    func namesTheList() throws {
        for list in Self.lists(count: 100) {
            let estimate = list.estimate(try list.bytes(), 1_000)
            guard case .over(let bytes, let field) = estimate else {
                Issue.record("\(list.label): \(estimate)")
                continue
            }
            // At the list itself, or inside an element (a map entry's value).
            #expect(field == list.field || field.hasPrefix(list.field + "."), "\(list.label): \(field)")
            #expect(bytes > 1_000, "\(list.label)")
        }
    }

    static func location(_ index: Int) -> Salus_V1_RouteLocation {
        var location = Salus_V1_RouteLocation()
        location.timestamp = 1_763_000_000_000_000 + Int64(index) * 1_000_000
        location.latitude = 47.37 + Double(index) * 1e-5
        location.longitude = 8.54 + Double(index) * 1e-5
        location.altitude = 408.5
        location.horizontalAccuracy = 4.2
        location.verticalAccuracy = 3.1
        location.course = 181.5
        location.speed = 3.4
        return location
    }

    static func heartRate(_ index: Int) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.uuid = Data((0..<16).map { UInt8(truncatingIfNeeded: index >> ($0 % 4 * 8)) })
        sample.type = "HKQuantityTypeIdentifierHeartRate"
        sample.startDate = 1_763_000_000_000_000 + Int64(index) * 5_000_000
        sample.endDate = sample.startDate
        sample.quantity.value = 60 + Double(index % 40)
        sample.quantity.unit = "count/min"
        return sample
    }

    /// The largest `make(count)` whose bytes fit in `bytes` (within 1%), encoded: `make` builds a
    /// message of `count` elements.
    static func filled<M: SwiftProtobuf.Message>(to bytes: Int, _ make: (Int) -> M) throws -> [UInt8] {
        let base = try make(0).serializedBytes() as [UInt8]
        let hundred = try make(100).serializedBytes() as [UInt8]
        var count = (bytes - base.count) * 100 / (hundred.count - base.count)
        while true {
            let encoded: [UInt8] = try make(count).serializedBytes()
            if encoded.count <= bytes {
                #expect(encoded.count > bytes - bytes / 100)
                return encoded
            }
            count -= count / 200 + 1
        }
    }

    @Test("the largest requests an app or the sync agent sends are within the limit: a frame of voltages, a route in one sample, a route chunk, a sync page of samples, a query of 10,000 UUIDs or 1,000 predicates")
    func legitimateRequestsWithin() throws {
        let frame = 4 << 20
        let voltages = try Self.filled(to: frame - 64) { count in
            var sample = Salus_V1_Sample()
            sample.type = "HKDataTypeIdentifierElectrocardiogram"
            sample.electrocardiogram.voltages = (0..<count).map { index in
                var voltage = Salus_V1_ElectrocardiogramVoltage()
                voltage.timeSinceSampleStart = Double(index) / 512
                voltage.microvolts = Double(index % 1_000) - 500.25
                voltage.lead = 1
                return voltage
            }
            return sample
        }
        let routeSample = try Self.filled(to: frame - 64) { count in
            var sample = Salus_V1_Sample()
            sample.type = "HKWorkoutRouteTypeIdentifier"
            sample.workoutRoute.locations = (0..<count).map(Self.location)
            return sample
        }
        var chunk = Salus_V1_SaveRouteMessage()
        chunk.locations.locations = (0..<1_000).map(Self.location)
        let page = try Self.filled(to: 1 << 20) { count in
            var request = Salus_V1_ReplicaSaveRequest()
            request.samples = (0..<count).map(Self.heartRate)
            return request
        }
        var uuids = Salus_V1_SampleQueryRequest()
        uuids.type = "HKQuantityTypeIdentifierHeartRate"
        uuids.predicate.uuids.uuids = (0..<10_000).map { index in Data((0..<16).map { UInt8(truncatingIfNeeded: index >> ($0 % 2 * 8)) }) }
        var predicates = Salus_V1_SampleQueryRequest()
        predicates.type = "HKQuantityTypeIdentifierHeartRate"
        predicates.predicate.or.predicates = (0..<1_000).map { index in
            var predicate = Salus_V1_Predicate()
            predicate.dateWindow.startDate = Int64(index) * 86_400_000_000
            predicate.dateWindow.endDate = Int64(index + 1) * 86_400_000_000
            return predicate
        }
        let requests: [(String, DecodingBudget.Estimate)] = [
            ("voltages", Self.estimate(Salus_V1_Sample.self, voltages, limit: DecodingBudget.defaultLimit)),
            ("route sample", Self.estimate(Salus_V1_Sample.self, routeSample, limit: DecodingBudget.defaultLimit)),
            ("route chunk", Self.estimate(Salus_V1_SaveRouteMessage.self, try chunk.serializedBytes(), limit: DecodingBudget.defaultLimit)),
            ("sync page", Self.estimate(Salus_V1_ReplicaSaveRequest.self, page, limit: DecodingBudget.defaultLimit)),
            ("uuids", Self.estimate(Salus_V1_SampleQueryRequest.self, try uuids.serializedBytes(), limit: DecodingBudget.defaultLimit)),
            ("predicates", Self.estimate(Salus_V1_SampleQueryRequest.self, try predicates.serializedBytes(), limit: DecodingBudget.defaultLimit)),
        ]
        for (label, estimate) in requests {
            let bytes = try #require(Self.within(estimate), "\(label): \(estimate)")
            // Room to spare: at most half the limit.
            #expect(bytes <= DecodingBudget.defaultLimit / 2, "\(label): \(bytes) bytes")
        }
    }

    @Test("fields decoding keeps as unknown bytes or passes over cost nothing: an unknown field number, a list sent with another wire type, a group; a list after a group still counts; bytes that stop being protobuf stop the walk")
    func followsSwiftProtobuf() throws {
        let element: [UInt8] = [0x1A, 0x00]  // field 3 (sort), an empty SortDescriptor
        let sorts = Array([[UInt8]](repeating: element, count: 1_000).joined())
        let limit = 10_000
        guard case .over(_, let field) = Self.estimate(Salus_V1_SampleQueryRequest.self, sorts, limit: limit) else {
            Issue.record("a thousand sort descriptors within \(limit) bytes")
            return
        }
        #expect(field == "sort")
        // Field 99, which the query does not have: kept as unknown bytes.
        let unknown = Array([[UInt8]](repeating: [0x9A, 0x06, 0x00], count: 1_000).joined())
        #expect(Self.within(Self.estimate(Salus_V1_SampleQueryRequest.self, unknown, limit: limit)) != nil)
        // Field 3 as a varint: not the list's wire type, so unknown too.
        let varints = Array([[UInt8]](repeating: [0x18, 0x00], count: 1_000).joined())
        #expect(Self.within(Self.estimate(Salus_V1_SampleQueryRequest.self, varints, limit: limit)) != nil)
        // Field 3 as a group holding more field-3 groups: passed over whole.
        let group = [0x1B] + Array([[UInt8]](repeating: [0x1B, 0x1C], count: 1_000).joined()) + [0x1C]
        #expect(Self.within(Self.estimate(Salus_V1_SampleQueryRequest.self, group, limit: limit)) != nil)
        #expect(throws: Never.self) { try Salus_V1_SampleQueryRequest(serializedBytes: group) }
        guard case .over(_, let afterGroup) = Self.estimate(Salus_V1_SampleQueryRequest.self, group + sorts, limit: limit) else {
            Issue.record("the sort descriptors after a group were not counted")
            return
        }
        #expect(afterGroup == "sort")
        // A broken length: SwiftProtobuf fails there, and the walk stops with what it counted.
        let broken = Array(sorts.prefix(20)) + [0x1A, 0x7F]
        #expect(Self.within(Self.estimate(Salus_V1_SampleQueryRequest.self, broken, limit: limit)) != nil)
        #expect(throws: (any Error).self) { try Salus_V1_SampleQueryRequest(serializedBytes: broken) }
    }

    @Test("random bytes and a small query changed anywhere or cut short: the walk ends, and the query stays within the limit")
    func anyBytes() throws {
        var generator = SystemRandomNumberGenerator()
        var request = Salus_V1_SampleQueryRequest()
        request.type = "HKQuantityTypeIdentifierHeartRate"
        request.predicate.or.predicates = (0..<20).map { index in
            var predicate = Salus_V1_Predicate()
            predicate.uuids.uuids = [Data(repeating: UInt8(index), count: 16)]
            return predicate
        }
        request.sort = [Salus_V1_SortDescriptor()]
        let valid: [UInt8] = try request.serializedBytes()
        for _ in 0..<2_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            let estimate = Self.estimate(Salus_V1_SampleQueryRequest.self, bytes, limit: DecodingBudget.defaultLimit)
            #expect(Self.within(estimate) != nil, "\(bytes)")
        }
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = Self.estimate(Salus_V1_SampleQueryRequest.self, bytes, limit: 1_000)
            _ = Self.estimate(Salus_V1_Sample.self, bytes, limit: 1_000)
        }
    }

    @Test("a request past the budget is refused with RESOURCE_EXHAUSTED naming the message and its list, before it is decoded")
    func refusal() throws {
        var request = Salus_V1_SampleQueryRequest()
        request.sort = Array(repeating: Salus_V1_SortDescriptor(), count: 1_000)
        let buffer = ByteBuffer(bytes: try request.serializedBytes() as [UInt8])
        let error = #expect(throws: RPCError.self) {
            _ = try decodeRequest(Salus_V1_SampleQueryRequest.self, from: buffer, limit: 10_000)
        }
        #expect(error?.code == .resourceExhausted)
        #expect(error?.detail?.field == "sort")
        #expect(error?.message.contains("salus.v1.SampleQueryRequest of 2000 bytes") == true, "\(String(describing: error))")
        let decoded = try decodeRequest(Salus_V1_SampleQueryRequest.self, from: buffer)
        #expect(decoded.sort.count == 1_000)
    }

    /// A query whose predicate is `not` nested `depth` deep, then `sorts` empty sort descriptors.
    static func nested(_ depth: Int, sorts: Int = 1_000) throws -> [UInt8] {
        var predicate = Salus_V1_Predicate()
        for _ in 0..<depth {
            var outer = Salus_V1_Predicate()
            outer.not = predicate
            predicate = outer
        }
        var request = Salus_V1_SampleQueryRequest()
        request.predicate = predicate
        request.sort = Array(repeating: Salus_V1_SortDescriptor(), count: sorts)
        return try request.serializedBytes()
    }

    @Test("a deep predicate does not hide a list after it: nested as deep as decoding allows, the sort descriptors after it still count; nested deeper, decoding refuses the request itself")
    func depthHidesNothing() throws {
        // The request, its predicate and 97 more levels: 99 of SwiftProtobuf's 100.
        let deepest = try Self.nested(97)
        #expect(throws: Never.self) { _ = try Salus_V1_SampleQueryRequest(serializedBytes: deepest) }
        // A limit the predicate alone is within, by 5,000 bytes; the descriptors take 40,000.
        let predicateAlone = try #require(Self.within(Self.estimate(Salus_V1_SampleQueryRequest.self, try Self.nested(97, sorts: 0))))
        let limit = predicateAlone + 5_000
        guard case .over(_, let field) = Self.estimate(Salus_V1_SampleQueryRequest.self, deepest, limit: limit) else {
            Issue.record("the sort descriptors after a deep predicate were not counted")
            return
        }
        #expect(field == "sort")
        let tooDeep = try Self.nested(150)
        #expect(throws: (any Error).self) { _ = try Salus_V1_SampleQueryRequest(serializedBytes: tooDeep) }
        _ = Self.estimate(Salus_V1_SampleQueryRequest.self, tooDeep, limit: limit)
    }
}
