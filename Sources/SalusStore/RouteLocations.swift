import Foundation
import SalusModel

/// A route's locations in `route_locations` (migration 10): blocks of `size` locations, numbered
/// from 0 in time order, each packed as 64 little-endian bytes per location.
enum RouteBlocks {
    /// Locations per block (the last block of a route may hold fewer): one block is one row of
    /// 64 KiB and one streamed chunk; a 15,000-location marathon is 15 rows.
    static let size = 1024

    /// Bytes per packed location: the timestamp (int64 microseconds since 1970), then latitude,
    /// longitude, altitude, horizontal accuracy, vertical accuracy, course and speed (float64
    /// each, NaN for "not known": the model refuses NaN values, so NaN is never a value).
    static let bytesPerLocation = 64

    /// Packs locations.
    static func encode(_ locations: ArraySlice<RouteLocation>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(locations.count * bytesPerLocation)
        func append(_ value: Double?) {
            withUnsafeBytes(of: (value ?? .nan).bitPattern.littleEndian) { bytes += $0 }
        }
        for location in locations {
            withUnsafeBytes(of: StoredTime.microseconds(location.timestamp).littleEndian) { bytes += $0 }
            append(location.latitude)
            append(location.longitude)
            append(location.altitude)
            append(location.horizontalAccuracy)
            append(location.verticalAccuracy)
            append(location.course)
            append(location.speed)
        }
        return bytes
    }

    /// Unpacks a block; a length that is not a multiple of `bytesPerLocation` is a damaged
    /// database.
    static func decode(_ bytes: [UInt8]) throws -> [RouteLocation] {
        guard bytes.count % bytesPerLocation == 0 else {
            throw StoreError(
                code: .database, message: "a stored route block has \(bytes.count) bytes, not a multiple of \(bytesPerLocation)")
        }
        var locations: [RouteLocation] = []
        locations.reserveCapacity(bytes.count / bytesPerLocation)
        bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: bytesPerLocation) {
                func number(_ field: Int) -> Double {
                    Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8 * field, as: UInt64.self)))
                }
                func optional(_ field: Int) -> Double? {
                    let value = number(field)
                    return value.isNaN ? nil : value
                }
                let time = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                locations.append(
                    RouteLocation(
                        timestamp: StoredTime.date(time), latitude: number(1), longitude: number(2), altitude: optional(3),
                        horizontalAccuracy: optional(4), verticalAccuracy: optional(5), course: optional(6),
                        speed: optional(7)))
            }
        }
        return locations
    }

    /// Inserts the locations of the route with row id `routeID`, attached to the workout with
    /// row id `workoutID`; call inside the save's transaction.
    static func insert(_ database: Database, routeID: Int64, workoutID: Int64, locations: [RouteLocation]) throws {
        try database.run(
            "INSERT INTO workout_routes (route_id, workout_id) VALUES (?, ?)", [.integer(routeID), .integer(workoutID)])
        let statement = try database.prepare(
            "INSERT INTO route_locations (route_id, block, first_us, last_us, locations) VALUES (?, ?, ?, ?, ?)")
        var block: Int64 = 0
        for start in stride(from: 0, to: locations.count, by: size) {
            let slice = locations[start..<min(start + size, locations.count)]
            try statement.bind([
                .integer(routeID), .integer(block), .integer(StoredTime.microseconds(slice.first!.timestamp)),
                .integer(StoredTime.microseconds(slice.last!.timestamp)), .blob(encode(slice)),
            ])
            while try statement.step() {}
            statement.reset()
            block += 1
        }
    }
}

/// A chunk of a route's locations.
package struct RouteLocationChunk: Sendable, Hashable {
    /// The position of the first location among all of the route's.
    package var firstIndex: Int
    /// The locations, in time order.
    package var locations: [RouteLocation]
}

/// The locations of one route, optionally only those in a time range, as an asynchronous
/// sequence of chunks of at most `RouteBlocks.size` locations, in time order.
///
/// A time-range read starts at the first block whose last timestamp reaches the range, found
/// with the (route, last_us) index, and stops at the first block that starts after it, so it
/// reads only the blocks it returns (and at most one more). Memory stays bounded whatever the
/// count: each `next()` reads one block on a reader connection, in its own short read
/// transaction. A route deleted during the iteration ends it early; a UUID that is no route gives
/// no chunk. Iteration stops after the last block or when the task is cancelled
/// (`CancellationError`).
package struct RouteLocationPages: AsyncSequence, Sendable {
    /// One chunk, never empty.
    package typealias Element = RouteLocationChunk

    /// The first block whose last timestamp reaches a time (bound: the route's UUID, the time in
    /// microseconds): a seek on the (route, last_us) index, never a scan of the route.
    package static let firstBlockSQL =
        "SELECT block FROM route_locations WHERE route_id = (SELECT id FROM samples s WHERE \(SampleUUIDs.match("s", "?1"))) AND last_us >= ?2 "
        + "ORDER BY last_us, block LIMIT 1"
    /// One block by number (bound: the route's UUID, the block): a primary-key lookup.
    package static let blockSQL =
        "SELECT first_us, locations FROM route_locations WHERE route_id = (SELECT id FROM samples s WHERE \(SampleUUIDs.match("s", "?1"))) AND block = ?2"

    let readers: ReaderPool
    /// The route sample's UUID.
    package let uuid: UUID
    /// The range's start and end in microseconds since 1970, both included.
    let start: Int64
    let end: Int64

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let pages: RouteLocationPages
        var nextBlock: Int64?
        var finished = false

        /// The next chunk, or nil after the last one.
        package mutating func next() async throws -> RouteLocationChunk? {
            while !finished {
                try Task.checkCancellation()
                let (uuid, start, end, block) = (pages.uuid, pages.start, pages.end, nextBlock)
                let found = try await pages.readers.run { database -> (Int64, Int64, [UInt8])? in
                    var number = block
                    if number == nil {
                        let first = try database.prepare(RouteLocationPages.firstBlockSQL)
                        defer { first.reset() }
                        try first.bind([.uuid(uuid), .integer(start)])
                        guard try first.step() else { return nil }
                        number = first.int64(0)
                    }
                    let statement = try database.prepare(RouteLocationPages.blockSQL)
                    defer { statement.reset() }
                    try statement.bind([.uuid(uuid), .integer(number!)])
                    guard try statement.step(), statement.int64(0) <= end else { return nil }
                    return (number!, statement.int64(0), statement.blob(1) ?? [])
                }
                guard let (block, _, bytes) = found else {
                    finished = true
                    return nil
                }
                nextBlock = block + 1
                let all = try RouteBlocks.decode(bytes)
                let from = StoredTime.date(start)
                let to = StoredTime.date(end)
                guard let lower = all.firstIndex(where: { $0.timestamp >= from }) else { continue }
                let upper = all[lower...].firstIndex(where: { $0.timestamp > to }) ?? all.count
                if upper < all.count { finished = true }
                guard lower < upper else { continue }
                return RouteLocationChunk(
                    firstIndex: Int(block) * RouteBlocks.size + lower, locations: Array(all[lower..<upper]))
            }
            return nil
        }
    }

    /// Makes an iterator that starts at the range's first location.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: self)
    }

    /// Every location, gathered into one array; for small results and tests.
    package func collect() async throws -> [RouteLocation] {
        var all: [RouteLocation] = []
        for try await chunk in self { all += chunk.locations }
        return all
    }
}

extension SampleStore {
    /// The locations of the route with this UUID, in chunks of at most 1,024 in time order,
    /// only those recorded in `start`...`end` when given; see `RouteLocationPages` for the index
    /// it uses, memory and consistency. No chunk when there is no such route.
    ///
    /// The store does not know who asks: check first that the caller may read the route.
    package func routeLocations(of uuid: UUID, from start: Date? = nil, to end: Date? = nil) throws -> RouteLocationPages {
        try checkOpen()
        return RouteLocationPages(
            readers: readers, uuid: uuid, start: start.map(StoredTime.microseconds) ?? .min,
            end: end.map(StoredTime.microseconds) ?? .max)
    }
}
