import Foundation
import Logging
import NIOCore
import SalusModel
import SalusPluginHost
import SalusProto
import SalusProtoCodec
import SalusRPC
import SalusStatistics
import SalusStore
import SalusWire
import SwiftProtobuf

/// salus.v1.Store: save, delete and query samples.
///
/// On an app socket the caller is the connection's app: samples it saves carry its source
/// revision, and it deletes only what it saved. On the admin socket the owner reads everything
/// and may delete anything, and saves only clinical documents and records (what the person
/// received from a clinic, `salusctl documents add`); everything else is an app's to write.
///
/// Every call is checked against the authorization engine: writes need share permission, reads
/// see other apps' samples only with read permission (and the app's own only with share
/// permission), and a read the owner denied looks exactly like a read of no data.
package struct StoreService: Sendable {

    /// Samples per streamed page.
    static let pageSize = 500
    /// Samples per page of a sample query written straight to wire bytes (at most 1 MiB of
    /// them, `SampleWirePages`): each page costs a hop to a reader, a read transaction, a seek
    /// and a frame, which 2,000 rows share four times better than 500.
    static let wirePageSize = 2_000
    /// The first such page's samples; each next page holds twice the one before, up to
    /// `wirePageSize` (`SampleWirePages.firstPageSize`): the client decodes a page while salusd
    /// reads the next, and waits at the end for a small page, not one of 2,000.
    static let wireFirstPageSize = 256

    /// Writes rows straight to wire bytes (docs/storage.md, "Reading rows straight to wire
    /// bytes"); payload kinds' values through the wire layer's conversion.
    static let wireEncoder = SampleWireEncoder { value, start, end in
        try Sample.encodedValue(value, startMicroseconds: start, endMicroseconds: end)
    }

    /// Whether rows of `type` go to the client as the store writes them, with no model sample:
    /// correlations (narrowed per member) and workouts (completed with statistics) need the
    /// model, and so does a document whose bytes are left out.
    func servesLean(_ type: TypeIdentifier, includeData: Bool = true) -> Bool {
        switch registry.type(type.rawValue)?.kind {
        case .correlation?, .workout?, nil: false
        case .document?: includeData
        default: true
        }
    }

    let store: SampleStore
    let registry: TypeRegistry
    let authorization: AuthorizationEngine
    /// Where apps' accesses are counted; nil: nowhere.
    let accessLog: AccessLog?

    /// A service over `store`, checked by `authorization`, counting apps' accesses in
    /// `accessLog`.
    package init(
        store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine, accessLog: AccessLog? = nil
    ) {
        self.store = store
        self.registry = registry
        self.authorization = authorization
        self.accessLog = accessLog
    }

    /// Counts an app's access to `types` in the access log: every type for a write or a delete
    /// (they succeeded), only the types it may read something of for a read. Why: an app denied
    /// a type read nothing of it, and leaves no trace of it (docs/authorization.md). The owner's
    /// calls are not counted: the log is what apps did.
    func logAccess<Types: Sequence<TypeIdentifier>>(
        _ caller: Caller, types: @autoclosure () -> Types, kind: AccessKind
    ) {
        guard let accessLog, accessLog.isRecording, caller.appIDSource != .owner else { return }
        let counted = kind == .write || kind == .delete
        var recorded = Set<String>()
        for type in types() where counted || authorization.readAccess(caller, type: type.rawValue) != .nothing {
            recorded.insert(type.rawValue)
        }
        if !recorded.isEmpty { accessLog.record(caller.appID, types: recorded, kind: kind) }
    }

    /// Adds the service's methods to `router`; `owner` for the admin socket.
    package func register(into router: inout RPCRouter, owner: Bool) {
        router.registerUnary(SalusMethods.Store.save, onEventLoop: false, encoded: { (payload: ByteBuffer, context) -> ByteBuffer in
            if let caller = try? Caller.resolve(context), let response = await self.savedInParts(payload, caller: caller) {
                return SaveResponseEncoding.encoded(response)
            }
            return try encodeMessage(try await self.save(payload: payload, caller: try Caller.resolve(context)))
        })
        router.registerUnary(SalusMethods.Store.delete, onEventLoop: false) { (request: Salus_V1_DeleteRequest, context) in
            try await self.delete(request, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(SalusMethods.Store.querySamples, onEventLoop: false) { (request: Salus_V1_SampleQueryRequest, writer: RPCWriter<Salus_V1_SampleBatch>, context) in
            try await self.querySamples(request, writer: writer, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(SalusMethods.Store.queryAnchored, onEventLoop: false) { (request: Salus_V1_AnchoredQueryRequest, writer: RPCWriter<Salus_V1_AnchoredBatch>, context) in
            try await self.queryAnchored(request, writer: writer, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(SalusMethods.Store.observe, onEventLoop: false) { (request: Salus_V1_ObserverRequest, writer: RPCWriter<Salus_V1_ObserverNotification>, context) in
            try await self.observe(request, writer: writer, caller: try Caller.resolve(context))
        }
        router.registerUnary(SalusMethods.Store.querySources, onEventLoop: false) { (request: Salus_V1_SourceQueryRequest, context) in
            return try await self.querySources(request, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(SalusMethods.Store.queryElectrocardiogramVoltages, onEventLoop: false) {
            (request: Salus_V1_ElectrocardiogramVoltageQueryRequest, writer: RPCWriter<Salus_V1_ElectrocardiogramVoltageBatch>, context) in
            try await self.queryElectrocardiogramVoltages(request, writer: writer, caller: try Caller.resolve(context))
        }
    }

    // MARK: Writing

    func save(_ request: Salus_V1_SaveRequest, caller: Caller) async throws -> Salus_V1_SaveResponse {
        guard !request.samples.isEmpty else {
            throw RPCError.invalidArgument(field: "samples", value: "0 samples", expected: "at least one sample")
        }
        let source = caller.sourceRevision
        let now = Date()
        var samples: [Sample] = []
        samples.reserveCapacity(request.samples.count)
        do throws(ValidationError) {
            for (index, wire) in request.samples.enumerated() {
                samples.append(try Sample(wire: wire, path: "samples[\(index)]", source: source, creationDate: now))
            }
        } catch {
            throw RPCError.from(error)
        }
        return try await save(converted: samples, caller: caller)
    }

    /// Saves the samples of an encoded `SaveRequest`, each decoded and converted in turn
    /// (`samples(of:source:now:)`), answering as `save(_:caller:)` does for the decoded request.
    func save(payload: ByteBuffer, caller: Caller) async throws -> Salus_V1_SaveResponse {
        let samples = try Self.samples(of: payload, source: caller.sourceRevision, now: Date())
        return try await save(converted: samples, caller: caller)
    }

    /// The model samples of an encoded `SaveRequest`, each decoded from its bytes and converted
    /// before the next is read, with the errors and their order of `decodeMessage` and
    /// `save(_:caller:)`: a request that does not decode, wherever, then no sample, then the
    /// first sample that does not convert.
    ///
    /// **A request is never decoded whole.** SwiftProtobuf's message of every sample cost about
    /// 485 bytes each, however few bytes it was sent in: a 4 MB request of two million empty
    /// samples, from an app with no permission at all, took salusd's peak memory up by 970 MiB
    /// before the first was refused. Here a sample's message lives while it is converted, and
    /// after the first that does not convert the rest are only checked to decode.
    static func samples(of payload: ByteBuffer, source: SourceRevision, now: Date) throws(RPCError) -> [Sample] {
        try payload.withUnsafeReadableBytes { bytes throws(RPCError) -> [Sample] in
            var samples = SampleReading()
            try readFields(Salus_V1_SaveRequest.self, bytes) { number, range throws(RPCError) in
                guard number == 1 else { return }
                try samples.add(bytes, range, of: Salus_V1_SaveRequest.self) { wire, index throws(ValidationError) in
                    try Sample(wire: wire, path: "samples[\(index)]", source: source, creationDate: now)
                }
            }
            return try samples.result()
        }
    }

    /// `salus.v1.Sample` in `MessageShape.all`, for each sample's decoding budget.
    static let sampleShape = MessageShape.indexByName[Salus_V1_Sample.protoMessageName]!

    /// The samples of a request read one at a time (`samples(of:source:now:)`): converted until
    /// the first that does not convert, then only checked to decode.
    struct SampleReading {
        var samples: [Sample] = []
        var invalid: RPCError?
        var count = 0

        /// Decodes the sample in `range` of `bytes` (a request of type `M`) and, while none has
        /// failed, converts it with `convert` (its wire message and index).
        mutating func add<M: SwiftProtobuf.Message>(
            _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, of _: M.Type,
            convert: (Salus_V1_Sample, Int) throws(ValidationError) -> Sample
        ) throws(RPCError) {
            let sampleBytes = UnsafeRawBufferPointer(rebasing: bytes[range])
            if case .over(let estimate, let field) = DecodingBudget.estimate(shape: StoreService.sampleShape, sampleBytes) {
                throw decodingBudgetError(
                    M.self, payloadBytes: bytes.count, estimate: estimate,
                    field: "samples[\(count)]" + (field.isEmpty ? "" : ".\(field)"), limit: DecodingBudget.defaultLimit)
            }
            let wire: Salus_V1_Sample
            do {
                wire = try Salus_V1_Sample(serializedBytes: sampleBytes.bytes)
            } catch {
                throw decodingError(M.self, error, payloadBytes: bytes.count)
            }
            if invalid == nil {
                do throws(ValidationError) {
                    samples.append(try convert(wire, count))
                } catch {
                    invalid = RPCError.from(error)
                    samples = []
                }
            }
            count += 1
        }

        /// The samples, or the error: no sample, then the first that did not convert.
        func result() throws(RPCError) -> [Sample] {
            if count == 0 {
                throw RPCError.invalidArgument(field: "samples", value: "0 samples", expected: "at least one sample")
            }
            if let invalid { throw invalid }
            return samples
        }
    }

    /// Reads an encoded `M` a field at a time, handing each length-delimited field's number and
    /// range to `visit`, with the error of decoding the whole message when a field does not
    /// read: SwiftProtobuf's own, from the bytes from that field on (the first thing it fails
    /// on, as it would reading the whole message, where everything before read). Fields of
    /// other wire types (groups too) are passed over, as SwiftProtobuf passes over a field it
    /// does not know or whose wire type is not its own.
    static func readFields<M: SwiftProtobuf.Message>(
        _ type: M.Type, _ bytes: UnsafeRawBufferPointer, _ visit: (UInt64, Range<Int>) throws(RPCError) -> Void
    ) throws(RPCError) {
        var reader = ProtoReader(bytes)
        while !reader.isAtEnd {
            let fieldStart = reader.offset
            let field: (UInt64, Range<Int>)?
            do {
                field = try Self.requestField(&reader)
            } catch {
                throw Self.requestDecodingError(M.self, bytes, from: fieldStart, reading: error)
            }
            if let (number, range) = field { try visit(number, range) }
        }
    }

    /// Reads one field: its number and range when it is length-delimited, else nil, passed over.
    static func requestField(_ reader: inout ProtoReader) throws -> (UInt64, Range<Int>)? {
        let key = try reader.varint()
        let (number, bits) = (key >> 3, UInt8(truncatingIfNeeded: key & 7))
        guard number != 0 else { throw ProtoDecodingError(.fieldNumberZero, offset: reader.offset, field: 0) }
        guard number <= 536_870_911 else { throw ProtoDecodingError(.fieldNumberTooLarge(number), offset: reader.offset, field: 0) }
        if bits == 2 { return (number, try reader.lengthDelimited()) }
        try skip(bits, number: number, &reader)
        return nil
    }

    /// Passes over the value of field `number` of wire type `bits`; a group up to its end.
    private static func skip(_ bits: UInt8, number: UInt64, _ reader: inout ProtoReader, depth: Int = 0) throws {
        if let wireType = WireType(bits: bits) {
            try reader.skip(wireType)
            return
        }
        // A group (3) to its end (4) with the same number, as deep as SwiftProtobuf's own limit.
        guard bits == 3, depth < 100 else {
            throw ProtoDecodingError(.unsupportedWireType(bits), offset: reader.offset, field: Int(truncatingIfNeeded: number))
        }
        while true {
            let key = try reader.varint()
            let (inner, innerBits) = (key >> 3, UInt8(truncatingIfNeeded: key & 7))
            if innerBits == 4 {
                guard inner == number else {
                    throw ProtoDecodingError(.unsupportedWireType(4), offset: reader.offset, field: Int(truncatingIfNeeded: inner))
                }
                return
            }
            try skip(innerBits, number: inner, &reader, depth: depth + 1)
        }
    }

    /// The error of a message `M` whose field at `start` does not read: SwiftProtobuf's own,
    /// from the bytes from that field on (the first thing it fails on, as it would reading the
    /// whole message, where everything before read), or ours (`error`) where it reads them.
    static func requestDecodingError<M: SwiftProtobuf.Message>(
        _ type: M.Type, _ bytes: UnsafeRawBufferPointer, from start: Int, reading error: any Error
    ) -> RPCError {
        do {
            _ = try M(serializedBytes: UnsafeRawBufferPointer(rebasing: bytes[start...]).bytes)
        } catch let swiftProtobufError {
            return decodingError(M.self, swiftProtobufError, payloadBytes: bytes.count)
        }
        return decodingError(M.self, error, payloadBytes: bytes.count)
    }

    /// Saves samples converted from a request: prepared, checked and saved as `save(_:caller:)`.
    private func save(converted samples: [Sample], caller: Caller) async throws -> Salus_V1_SaveResponse {
        var samples = samples
        let source = caller.sourceRevision
        do throws(ValidationError) {
            samples = try registry.catalog.prepareForSaving(samples)
        } catch {
            throw RPCError.from(error)
        }
        if caller.appIDSource == .owner {
            try ownerMaySave(samples)
        }
        try await RoutesService.checkWorkouts(
            samples, store: store, authorization: authorization, caller: caller,
            field: { "samples[\($0)].workoutRoute.workoutUuid" }, route: { "samples[\($0)].workoutRoute" })
        // A correlation needs share permission for its own type and every member's (HealthKit asks
        // for the members' only; Salus asks for both, so the owner sees "blood pressure" too).
        let written = Self.typesWritten(by: samples)
        if caller.appIDSource != .owner {
            try await authorizationCall { try authorization.checkShare(caller, types: written) }
        }
        // Documents are parsed only once the caller may save them: an app without permission
        // cannot make the daemon parse anything.
        do throws(ValidationError) {
            samples = try ClinicalDocumentIntake.read(samples)
        } catch {
            throw RPCError.from(error)
        }
        let response = try await storeCall {
            try await store.save(samples, source: source, options: SaveOptions(uuidPolicy: .assign))
        }
        logAccess(caller, types: written.map(TypeIdentifier.init(rawValue:)), kind: .write)
        var reply = Salus_V1_SaveResponse()
        reply.anchor = response.anchor.rawValue
        reply.results = response.results.map(Self.wire)
        return reply
    }

    /// The samples of a batch decoded, converted and checked as one part while the writer saves
    /// the part before (`savedInParts`): at most this many.
    static let feedPart = 1_000

    /// The size of each part after `previous` (nil: the first). The writer waits for the first
    /// part, so it is small; each next one is half as large again as the one before, which the
    /// producer converts in less time than the writer takes to insert that one (about two thirds
    /// of it a sample, in a profile of the store bench's save), up to `feedPart`. With parts of
    /// 1,000 from the start the writer waited through the first, a tenth of a 10,000-sample batch.
    static func partSize(after previous: Int?) -> Int {
        guard let previous else { return firstFeedPart }
        return min(feedPart, previous + previous / 2)
    }

    /// The first part's size.
    static let firstFeedPart = 100

    /// Why a save in parts stopped for the whole-batch path to answer.
    struct NotInParts: Error {}

    /// A large batch of quantities and categories (most of what apps save: a day of steps, an
    /// hour of heart rates) saved in parts: its samples are decoded from the request, converted
    /// and checked a part at a time while the store's writer saves the parts before, in the
    /// save's one transaction, so on two cores the two overlap rather than follow each other.
    ///
    /// Nil, with nothing saved, for any other request (under two parts, another kind of sample,
    /// the owner's) and for any that fails (a sample that does not decode or breaks a rule, a
    /// type the app may not write, the store's error): the writer rolls back, and `save(_:caller:)`
    /// decodes the whole request and answers as for any batch, with the same checks in the same
    /// order. A request that fails is so worked on twice, at most.
    func savedInParts(_ payload: ByteBuffer, caller: Caller) async -> SaveResponse? {
        guard caller.appIDSource != .owner, let samples = Self.sampleRanges(payload), samples.count >= 2 * Self.feedPart else {
            return nil
        }
        let source = caller.sourceRevision
        let now = Date()
        let catalog = registry.catalog
        let authorization = authorization
        let feed = SampleFeed()
        let producer = Task { () -> [String]? in
            var written: [String] = []
            var seen = Set<String>()
            var first = 0
            var size: Int?
            while first < samples.count {
                // Nothing is converted before the store's writer takes this save, and at most
                // two parts ahead of it: a save waiting behind others holds only its request.
                await feed.waitForRoom()
                if feed.isAbandoned { return nil }
                size = Self.partSize(after: size)
                let end = min(samples.count, first + size!)
                let part: [Sample]
                do {
                    part = try payload.withUnsafeReadableBytes { bytes in
                        var part: [Sample] = []
                        part.reserveCapacity(end - first)
                        var last: String?
                        var added: [String] = []
                        for index in first..<end {
                            let sampleBytes = UnsafeRawBufferPointer(rebasing: bytes[samples[index]])
                            // One that would take too much memory decoded is refused by the whole-batch path.
                            guard case .within = DecodingBudget.estimate(shape: Self.sampleShape, sampleBytes) else { throw NotInParts() }
                            let wire = try Salus_V1_Sample(serializedBytes: sampleBytes.bytes)
                            switch wire.value {
                            case .quantity, .category: break
                            default: throw NotInParts()
                            }
                            let sample = try Sample(wire: wire, path: "samples[\(index)]", source: source, creationDate: now)
                            // `TypeCatalog.prepareForSaving`'s check: quantities and categories need no preparing.
                            if !catalog.validationErrors(of: sample, at: "samples[\(index)]").isEmpty { throw NotInParts() }
                            if wire.type != last, seen.insert(wire.type).inserted { added.append(wire.type) }
                            last = wire.type
                            part.append(sample)
                        }
                        // The part's new types, checked before the writer sees any of its samples.
                        if !added.isEmpty {
                            try authorization.checkShare(caller, types: added)
                            written += added
                        }
                        return part
                    }
                } catch {
                    feed.fail(NotInParts())
                    return nil
                }
                guard feed.put(part) else { return nil }
                first = end
            }
            feed.finish()
            return written
        }
        let response: SaveResponse
        do {
            response = try await store.save(feed: feed, source: source)
        } catch {
            feed.abandon()
            _ = await producer.value
            return nil
        }
        guard let written = await producer.value else { return nil }
        logAccess(caller, types: written.map(TypeIdentifier.init(rawValue:)), kind: .write)
        return response
    }

    /// The most samples a request saved in parts holds; a larger one (a 4 MB frame of empty
    /// samples holds two million, whose ranges alone took 32 MB) goes to the whole-batch path,
    /// which reads it a sample at a time.
    static let mostSamplesInParts = 200_000

    /// Where each sample of an encoded `SaveRequest` lies in `payload`, in order; nil when the
    /// request does not read as one (the whole-batch decoding then says why). Other fields are
    /// passed over, as decoding the request passes over fields it does not know.
    static func sampleRanges(_ payload: ByteBuffer) -> [Range<Int>]? {
        payload.withUnsafeReadableBytes { bytes in
            var reader = ProtoReader(bytes)
            var ranges: [Range<Int>] = []
            do {
                while !reader.isAtEnd {
                    guard let (number, range) = try Self.requestField(&reader), number == 1 else { continue }
                    guard ranges.count < mostSamplesInParts else { return nil }
                    ranges.append(range)
                }
            } catch {
                return nil
            }
            return ranges
        }
    }

    /// The kinds the owner saves on the admin socket: documents and records from a clinic.
    static let ownerSavedKinds: Set<ObjectKind> = [.document, .clinicalRecord]

    /// Refuses, naming `samples[i].type`, a sample of a kind the owner does not save.
    func ownerMaySave(_ samples: [Sample]) throws(RPCError) {
        for (index, sample) in samples.enumerated() {
            let kind = registry.type(sample.type.rawValue)?.kind
            guard let kind, Self.ownerSavedKinds.contains(kind) else {
                throw RPCError.invalidArgument(
                    field: "samples[\(index)].type", value: sample.type.rawValue,
                    expected: "a clinical document or clinical record type: the owner saves what a clinic sent, apps save the rest")
            }
        }
    }

    /// The types a save writes: each sample's, and each correlation member's, once each, in the
    /// order they first come. A batch is mostly runs of one type: a type equal to the one before
    /// is passed over without hashing it (the list had an array per sample, built twice a save).
    static func typesWritten(by samples: [Sample]) -> [String] {
        var types: [String] = []
        var seen = Set<String>()
        var last: String?
        func add(_ type: String) {
            guard type != last else { return }
            last = type
            if seen.insert(type).inserted { types.append(type) }
        }
        for sample in samples {
            add(sample.type.rawValue)
            if case .correlation(let correlation) = sample.value {
                for member in correlation.objects { add(member.type.rawValue) }
            }
        }
        return types
    }

    /// The wire form of one save result, a correlation's members' results included.
    static func wire(_ result: SaveResult) -> Salus_V1_SaveResult {
        var wire = Salus_V1_SaveResult()
        wire.uuid = WireUUID.bytes(result.uuid)
        switch result.outcome {
        case .saved: wire.outcome = .saved
        case .keptExisting: wire.outcome = .keptExisting
        case .replaced(let old):
            wire.outcome = .replaced
            wire.replacedUuid = WireUUID.bytes(old)
        case .present, .deletedHere:
            // Replicas only (ReplicaService); an app's save never keeps a UUID.
            wire.outcome = .unspecified
        }
        wire.objects = result.objects.map(Self.wire)
        return wire
    }

    func delete(_ request: Salus_V1_DeleteRequest, caller: Caller) async throws -> Salus_V1_DeleteResponse {
        let requester: Requester = caller.appIDSource == .owner ? .owner : .app(caller.appID)
        let response: DeleteResponse
        switch request.target {
        case .uuids(let list):
            let uuids = try list.checkedUUIDs()
            var types: Set<TypeIdentifier> = []
            if requester != .owner {
                try await authorizationCall { try await checkShareForDeletion(uuids, caller: caller) }
                try await checkDeclaredTypes(uuids, caller: caller)
                if accessLog != nil { types = try await storeCall { try await store.types(of: uuids) } }
            }
            response = try await storeCall { try await store.delete(uuids, requester: requester) }
            logAccess(caller, types: types, kind: .delete)
        case .matching(let matching):
            let descriptor = try descriptor(matching, path: "matching")
            if requester != .owner {
                try await authorizationCall { try authorization.checkShare(caller, types: [descriptor.type.rawValue]) }
            }
            // The store deletes only the app's own samples; the count must not tell a statistic
            // of a type the app may not read either.
            let predicate = try readPredicate(descriptor.predicate, of: descriptor.type, for: caller, path: "matching.predicate")
            response = try await storeCall {
                try await store.delete(type: descriptor.type, matching: predicate, requester: requester)
            }
            if response.deleted > 0 { logAccess(caller, types: [descriptor.type], kind: .delete) }
        case nil:
            throw RPCError.invalidArgument(field: "target", value: "", expected: "uuids or matching")
        }
        var reply = Salus_V1_DeleteResponse()
        reply.deleted = UInt64(response.deleted)
        reply.anchor = response.anchor.rawValue
        return reply
    }

    /// Refuses a deletion by UUID of the app's own sample whose type no loaded plugin declares
    /// (a store written with a plugin that is gone) as a UUID not in the store is refused: the
    /// same NOT_FOUND, naming the first UUID the store would refuse. No app holds share
    /// permission for such a type, and the share check (`checkShareForDeletion`) finds a
    /// UUID's type only among the types the app has decisions for, so the sample was deleted
    /// and the app told it exists. The owner may delete it.
    func checkDeclaredTypes(_ uuids: [UUID], caller: Caller) async throws {
        let keys = try await storeCall { try await store.deletionKeys(uuids: uuids) }
        guard keys.values.contains(where: { registry.type($0.type.rawValue) == nil }) else { return }
        var seen = Set<UUID>()
        for (index, uuid) in uuids.enumerated() where seen.insert(uuid).inserted {
            guard let key = keys[uuid], key.appID == caller.appID, registry.type(key.type.rawValue) != nil else {
                throw RPCError.from(
                    StoreError(
                        code: .notFound, field: "uuids[\(index)]", value: uuid.uuidString,
                        expected: "the UUID of a sample in the store"))
            }
        }
    }

    // MARK: Reading

    /// The type a request names, refused naming `field` when it is empty or no loaded plugin
    /// declares it: a typo in an identifier must not read as "no data" forever.
    func knownType(_ identifier: String, field: String) throws(RPCError) -> TypeIdentifier {
        guard !identifier.isEmpty else {
            throw RPCError.invalidArgument(field: field, value: "", expected: "a type identifier")
        }
        guard registry.type(identifier) != nil else {
            throw RPCError.invalidArgument(
                field: field, value: identifier, expected: "a type identifier a loaded plugin declares (salusctl types)")
        }
        return TypeIdentifier(rawValue: identifier)
    }

    func descriptor(_ wire: Salus_V1_TypedPredicate, path: String) throws(RPCError) -> QueryDescriptor {
        QueryDescriptor(
            type: try knownType(wire.type, field: "\(path).type"),
            predicate: wire.hasPredicate ? try modelPredicate(wire.predicate, path: "\(path).predicate") : nil
        )
    }

    func querySamples(_ request: Salus_V1_SampleQueryRequest, writer: RPCWriter<Salus_V1_SampleBatch>, caller: Caller) async throws {
        let type = try knownType(request.type, field: "type")
        var sort: [SampleSortDescriptor] = []
        for (index, descriptor) in request.sort.enumerated() {
            do {
                sort.append(try SampleSortDescriptor(wire: descriptor, path: "sort[\(index)]"))
            } catch {
                throw RPCError.from(error)
            }
        }
        let isCorrelation = registry.type(request.type)?.kind == .correlation
        let memberPredicates = try memberPredicates(request, isCorrelation: isCorrelation, caller: caller)
        let limit = request.limit == 0 ? nil : Int(clamping: request.limit)
        let query = SampleQuery(
            type: type,
            predicate: try readPredicate(
                request.hasPredicate ? try modelPredicate(request.predicate) : nil, of: type, for: caller),
            sort: sort,
            // Correlations the caller may read none of the members of are dropped below, so the
            // limit counts what is sent.
            limit: isCorrelation ? nil : limit,
            memberPredicates: memberPredicates
        )
        logAccess(caller, types: [type] + memberPredicates.map(\.type), kind: .sampleQuery)
        if servesLean(type, includeData: request.includeData) {
            try await storeCall {
                // The pages read and not yet sent (the next one, and a date window's second half)
                // count against the app's buffered bytes, as what its socket has not taken does.
                for try await page in try store.samples(query, pageSize: Self.wirePageSize).wire(
                    Self.wireEncoder, firstPageSize: Self.wireFirstPageSize, hold: Self.hold(writer))
                {
                    try await writer.writeSerialized(page.bytes, releasing: page.bytes.readableBytes)
                }
            }
            return
        }
        try await storeCall {
            var remaining = limit
            for try await page in try store.samples(query, pageSize: Self.pageSize) {
                var samples = isCorrelation ? authorization.narrowingCorrelations(page, for: caller) : page
                if let left = remaining {
                    samples = Array(samples.prefix(left))
                    remaining = left - samples.count
                }
                if !request.includeData {
                    samples = samples.map(ClinicalDocumentIntake.withoutData)
                }
                if !samples.isEmpty {
                    samples = try await completingWorkouts(samples, for: caller)
                    try await Self.writeBatches(samples.map(\.wire), to: writer)
                }
                if remaining == 0 { return }
            }
        }
    }

    /// Counts the pages a query reads for `writer`'s call against the app's buffered bytes
    /// until the write that sends each releases it (`PageHold`, `RPCWriter.reserveHeld`).
    static func hold<Message>(_ writer: RPCWriter<Message>) -> PageHold {
        PageHold { try writer.reserveHeld($0) }
    }

    /// A model page's frame ends at this many bytes of samples, as a wire page does
    /// (`SampleWirePages.pageBytes`).
    static let batchBytes = 1 << 20

    /// Sends `samples` as `SampleBatch` frames in order: one, or several when together they pass
    /// `batchBytes` (`RPCWriter.writeRepeated`). A model page is 500 samples whatever their size,
    /// and 300 workouts with a 16 KB note each made one frame of 4.8 MB, past the 4 MiB limit: the
    /// query failed for every reader of the type.
    static func writeBatches(_ samples: [Salus_V1_Sample], to writer: RPCWriter<Salus_V1_SampleBatch>) async throws {
        try await writer.writeRepeated(samples, field: 1, frameBytes: batchBytes)
    }

    /// A correlation query's member predicates (HKCorrelationQuery's samplePredicates), each
    /// restricted to what the caller may read of its type: a member the caller may not see
    /// cannot make a correlation match.
    func memberPredicates(
        _ request: Salus_V1_SampleQueryRequest, isCorrelation: Bool, caller: Caller
    ) throws(RPCError) -> [QueryDescriptor] {
        guard !request.samplePredicates.isEmpty else { return [] }
        guard isCorrelation else {
            throw RPCError.invalidArgument(
                field: "samplePredicates", value: "\(request.samplePredicates.count) for \(request.type)",
                expected: "member predicates only in a query of a correlation type")
        }
        var descriptors: [QueryDescriptor] = []
        for (index, wire) in request.samplePredicates.enumerated() {
            var member = try descriptor(wire, path: "samplePredicates[\(index)]")
            let kind = registry.type(member.type.rawValue)?.kind
            guard kind == .quantity || kind == .category else {
                throw RPCError.invalidArgument(
                    field: "samplePredicates[\(index)].type", value: member.type.rawValue,
                    expected: "a quantity or category type: what correlations hold")
            }
            member.predicate = try readPredicate(member.predicate, of: member.type, for: caller, path: "samplePredicates[\(index)].predicate")
            descriptors.append(member)
        }
        return descriptors
    }

    func queryAnchored(_ request: Salus_V1_AnchoredQueryRequest, writer: RPCWriter<Salus_V1_AnchoredBatch>, caller: Caller) async throws {
        guard !request.descriptors.isEmpty else {
            throw RPCError.invalidArgument(field: "descriptors", value: "none", expected: "at least one (type, predicate) descriptor")
        }
        var descriptors: [QueryDescriptor] = []
        for (index, descriptor) in request.descriptors.enumerated() {
            var typed = try self.descriptor(descriptor, path: "descriptors[\(index)]")
            typed.localChangesOnly = request.localChangesOnly
            typed.predicate = try readPredicate(typed.predicate, of: typed.type, for: caller, path: "descriptors[\(index)].predicate")
            descriptors.append(typed)
        }
        logAccess(caller, types: descriptors.map(\.type), kind: request.live ? .liveFeed : .anchoredQuery)
        let anchor = request.optionalAnchor != nil ? Anchor(rawValue: request.anchor) : nil
        var resume = anchor
        var initialDone = false
        if descriptors.allSatisfy({ servesLean($0.type) }) {
            if request.limit > 0 && !request.live {
                var page = try await storeCall {
                    try await store.anchoredWire(
                        descriptors, anchor: anchor, limit: Int(clamping: request.limit), encoder: Self.wireEncoder)
                }
                try await writer.writeSerialized(page.batch(initialResultsComplete: true, moreChanges: page.hasMore))
                return
            }
            // Access is checked again at each delivery: when it changed since the start (a
            // revocation), the rest goes through the model path, which filters each sample.
            let access = descriptors.map { authorization.readAccess(caller, type: $0.type.rawValue) }
            let done = try await storeCall { () async throws -> Bool in
                // Pages of `wirePageSize`, as a sample query's: a page of 500 paid its hop, read
                // transaction, statements and frame for a quarter of the rows.
                let changes = try store.anchoredWireChanges(
                    descriptors, from: anchor, pageSize: Self.wirePageSize, encoder: Self.wireEncoder, hold: Self.hold(writer))
                // Asked for, the whole history of one type with nothing held back from the
                // caller: its size, so the reader can size its buffer once.
                var hint = 0
                if request.countInitialAdded, anchor == nil, descriptors.count == 1, descriptors[0].predicate == nil,
                    !request.localChangesOnly
                {
                    hint = try await store.sampleCount(of: descriptors[0].type)
                }
                for try await var change in changes {
                    let held = change.result.changes.bytes.readableBytes
                    guard descriptors.map({ authorization.readAccess(caller, type: $0.type.rawValue) }) == access else {
                        writer.releaseHeld(held)
                        return false
                    }
                    try await writer.writeSerialized(
                        change.result.batch(
                            initialResultsComplete: change.initialResultsComplete, moreChanges: false, initialAddedHint: hint),
                        releasing: held)
                    hint = 0
                    resume = change.result.anchor
                    initialDone = initialDone || change.initialResultsComplete
                    if change.initialResultsComplete && !request.live { return true }
                }
                return true
            }
            if done { return }
        }
        if request.limit > 0 && !request.live {
            let result = try await storeCall {
                try await store.anchoredQuery(
                    descriptors, anchor: anchor, limit: Int(clamping: request.limit), maxBytes: Self.batchBytes)
            }
            var narrowed = result.narrowed(authorization, for: caller)
            narrowed.added = try await completingWorkouts(narrowed.added, for: caller)
            var batch = Self.batch(narrowed)
            batch.initialResultsComplete = true
            batch.moreChanges = result.hasMore
            try await writer.write(batch)
            return
        }
        try await storeCall {
            // After the lean path above, the initial results may be done already: later batches
            // are live updates.
            let resumedLive = initialDone
            for try await change in try store.anchoredChanges(
                descriptors, from: resume, pageSize: Self.pageSize, maxBytes: Self.batchBytes, hold: Self.hold(writer))
            {
                let held = change.result.storedBytes
                // Access is checked again at each delivery, so a revocation stops the type at once,
                // and a live update left empty by it is not sent (its anchor would tell of a write).
                var (result, filtered) = authorization.filter(change.result, for: caller)
                if (filtered || resumedLive) && initialDone && result.added.isEmpty && result.deleted.isEmpty {
                    writer.releaseHeld(held)
                    continue
                }
                result.added = try await completingWorkouts(result.added, for: caller)
                let initialComplete = change.initialResultsComplete && !resumedLive
                initialDone = initialDone || change.initialResultsComplete
                var batch = Self.batch(result)
                batch.initialResultsComplete = initialComplete
                try await writer.write(batch, releasing: held)
                if change.initialResultsComplete && !request.live { return }
            }
        }
    }

    /// `samples` with each workout's statistics and SWOLF computed from its associated samples,
    /// over the types `caller` may read of the workout's app (docs/workouts.md, "Statistics").
    func completingWorkouts(_ samples: [Sample], for caller: Caller) async throws -> [Sample] {
        try await WorkoutFigures.completingWorkouts(samples, store: store) { type, appID in
            switch authorization.readAccess(caller, type: type.rawValue) {
            case .all: true
            case .own(let own, _): own == appID
            case .nothing: false
            }
        }
    }

    static func batch(_ result: AnchoredQueryResult) -> Salus_V1_AnchoredBatch {
        var batch = Salus_V1_AnchoredBatch()
        batch.added = result.added.map(\.wire)
        batch.deleted = result.deleted.map(\.wire)
        batch.anchor = result.anchor.rawValue
        return batch
    }

    func observe(_ request: Salus_V1_ObserverRequest, writer: RPCWriter<Salus_V1_ObserverNotification>, caller: Caller) async throws {
        guard !request.descriptors.isEmpty else {
            throw RPCError.invalidArgument(field: "descriptors", value: "none", expected: "at least one type to observe")
        }
        var watched = Set<TypeIdentifier>()
        for (index, descriptor) in request.descriptors.enumerated() {
            watched.insert(try self.descriptor(descriptor, path: "descriptors[\(index)]").type)
        }
        logAccess(caller, types: watched, kind: .observer)
        // Subscribe before reading the anchor, so no commit falls between the two.
        let commits = store.commits()
        var first = Salus_V1_ObserverNotification()
        first.anchor = try await storeCall { try await store.currentAnchor() }.rawValue
        try await writer.write(first)
        for await commit in commits {
            // A type the caller may not fully read is reported only for the caller's own commits,
            // which the event names itself.
            let changed = authorization.observedChanges(commit, watched: watched, caller: caller)
            guard !changed.isEmpty else { continue }
            var notification = Salus_V1_ObserverNotification()
            notification.changedTypes = changed.map(\.rawValue).sorted()
            notification.anchor = commit.anchor.rawValue
            try await writer.write(notification)
        }
    }

    /// Streams the voltages of one electrocardiogram, a chunk (one stored block) per Data
    /// frame, each read only when the stream has credit.
    ///
    /// The caller must be able to read the sample as a sample query would show it (read
    /// permission, or its own sample with share permission): a sample that does not exist and one
    /// the caller may not read give the same NOT_FOUND, so a denied reader learns nothing. A
    /// readable sample of another kind is INVALID_ARGUMENT naming `uuid`.
    func queryElectrocardiogramVoltages(
        _ request: Salus_V1_ElectrocardiogramVoltageQueryRequest, writer: RPCWriter<Salus_V1_ElectrocardiogramVoltageBatch>,
        caller: Caller
    ) async throws {
        guard let uuid = WireUUID.uuid(request.uuid) else {
            throw RPCError.invalidArgument(
                field: "uuid", value: "\(request.uuid.count) bytes", expected: "16 bytes: an electrocardiogram's UUID")
        }
        _ = try await authorization.readableSample(
            uuid, of: .electrocardiogram, named: "an electrocardiogram", in: store, caller: caller)
        try await storeCall {
            var chunks = try store.electrocardiogramVoltages(of: uuid).makeAsyncIterator()
            // The credit first, then the read: a reader that grants nothing holds back SQLite.
            while true {
                try await writer.waitUntilSendable()
                guard let chunk = try await chunks.next() else { break }
                var batch = Salus_V1_ElectrocardiogramVoltageBatch()
                batch.firstIndex = UInt64(chunk.firstIndex)
                batch.voltages = chunk.voltages.map(\.wire)
                try await writer.write(batch)
            }
        }
    }

    func querySources(_ request: Salus_V1_SourceQueryRequest, caller: Caller) async throws -> Salus_V1_SourceQueryResponse {
        let type = try knownType(request.type, field: "type")
        // As a sample query: a workout-statistic test on a type the caller may not read matches
        // nothing, or the sources listed would tell the statistic.
        let predicate = try readPredicate(
            request.hasPredicate ? try modelPredicate(request.predicate) : nil, of: type, for: caller)
        logAccess(caller, types: [type], kind: .sourceQuery)
        let sources = try await storeCall {
            try await store.sources(type: type, matching: predicate)
        }
        var response = Salus_V1_SourceQueryResponse()
        response.sources = sources.map { source in
            var info = Salus_V1_SourceInfo()
            info.appID = source.appID
            info.name = source.name
            info.devices = source.devices.map(\.wire)
            return info
        }
        return response
    }
}

extension AnchoredQueryResult {
    /// The result with each added correlation narrowed to the members `caller` may read.
    func narrowed(_ authorization: AuthorizationEngine, for caller: Caller) -> AnchoredQueryResult {
        var result = self
        result.added = authorization.narrowingCorrelations(added, for: caller)
        return result
    }
}

extension Salus_V1_UUIDList {
    /// The list's UUIDs, each 16 bytes; an empty list, or an entry of another length, is
    /// INVALID_ARGUMENT naming `uuids` or `uuids[i]` (a deletion by UUID, an app's or a replica's).
    func checkedUUIDs() throws -> [UUID] {
        guard !uuids.isEmpty else {
            throw RPCError.invalidArgument(field: "uuids", value: "0 UUIDs", expected: "at least one UUID")
        }
        return try uuids.enumerated().map { index, bytes in
            guard let uuid = WireUUID.uuid(bytes) else {
                throw RPCError.invalidArgument(field: "uuids[\(index)]", value: "\(bytes.count) bytes", expected: "16 bytes")
            }
            return uuid
        }
    }
}
