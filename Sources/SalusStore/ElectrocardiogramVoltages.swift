import Foundation
import SalusModel
import Synchronization

/// An electrocardiogram's voltages in `electrocardiogram_voltages` (migration 6): blocks of
/// `size` voltages, numbered from 0, each packed as 20 little-endian bytes per voltage.
enum VoltageBlocks {
    /// Voltages per block (the last block of an electrocardiogram may hold fewer): one block is
    /// one row of 20 KB and one streamed chunk.
    static let size = 1024

    /// Bytes per packed voltage: time (float64), microvolts (float64), lead (int32).
    static let bytesPerVoltage = 20

    /// Packs voltages.
    static func encode(_ voltages: ArraySlice<ElectrocardiogramVoltage>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(voltages.count * bytesPerVoltage)
        for voltage in voltages {
            withUnsafeBytes(of: voltage.timeSinceSampleStart.bitPattern.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: voltage.microvolts.bitPattern.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: Int32(clamping: voltage.lead.rawValue).littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// Unpacks a block; a length that is not a multiple of `bytesPerVoltage` or an unknown lead is a
    /// damaged database.
    static func decode(_ bytes: [UInt8]) throws -> [ElectrocardiogramVoltage] {
        guard bytes.count % bytesPerVoltage == 0 else {
            throw StoreError(code: .database, message: "a stored voltage block has \(bytes.count) bytes, not a multiple of \(bytesPerVoltage)")
        }
        var voltages: [ElectrocardiogramVoltage] = []
        voltages.reserveCapacity(bytes.count / bytesPerVoltage)
        try bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: bytesPerVoltage) {
                let time = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                let microvolts = Double(
                    bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
                let lead = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: Int32.self))
                voltages.append(
                    ElectrocardiogramVoltage(
                        timeSinceSampleStart: time, microvolts: microvolts,
                        lead: try Payloads.known(Int(lead), "electrocardiogram lead")))
            }
        }
        return voltages
    }

    /// Inserts the voltages of the sample with row id `sampleID`; call inside the save's
    /// transaction.
    static func insert(_ database: Database, sampleID: Int64, voltages: [ElectrocardiogramVoltage]) throws {
        let statement = try database.prepare(
            "INSERT INTO electrocardiogram_voltages (sample_id, block, measurements) VALUES (?, ?, ?)")
        var block: Int64 = 0
        for start in stride(from: 0, to: voltages.count, by: size) {
            let slice = voltages[start..<min(start + size, voltages.count)]
            try statement.bind([.integer(sampleID), .integer(block), .blob(encode(slice))])
            while try statement.step() {}
            statement.reset()
            block += 1
        }
    }
}

/// A chunk of an electrocardiogram's voltages.
package struct ElectrocardiogramVoltageChunk: Sendable, Hashable {
    /// The position of the first voltage among all of the electrocardiogram's.
    package var firstIndex: Int
    /// The voltages, in recording order.
    package var voltages: [ElectrocardiogramVoltage]
}

/// The voltages of one electrocardiogram, as an asynchronous sequence of chunks of at most
/// `VoltageBlocks.size` voltages, in recording order.
///
/// Memory stays bounded whatever the count: each `next()` reads one block on a reader
/// connection, in its own short read transaction, and resumes after it. An electrocardiogram
/// deleted during the iteration ends it early; one never saved, or saved without voltages, gives
/// no chunk. Iteration stops after the last block or when the task is cancelled
/// (`CancellationError`).
package struct ElectrocardiogramVoltagePages: AsyncSequence, Sendable {
    /// One chunk, never empty.
    package typealias Element = ElectrocardiogramVoltageChunk

    let readers: ReaderPool
    /// The electrocardiogram sample's UUID.
    package let uuid: UUID
    /// Counts each block read from the database (the store's, for tests and diagnostics).
    let blockReads: VoltageBlockReads

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let readers: ReaderPool
        let uuid: UUID
        let blockReads: VoltageBlockReads
        var nextBlock: Int64 = 0
        var finished = false

        /// The next chunk, or nil after the last one.
        package mutating func next() async throws -> ElectrocardiogramVoltageChunk? {
            guard !finished else { return nil }
            try Task.checkCancellation()
            let (uuid, block) = (self.uuid, nextBlock)
            blockReads.count.add(1, ordering: .relaxed)
            let bytes = try await readers.run { database -> [UInt8]? in
                let statement = try database.prepare(
                    "SELECT v.measurements FROM electrocardiogram_voltages v "
                        + "WHERE v.sample_id = (SELECT id FROM samples s WHERE \(SampleUUIDs.match("s", "?1"))) AND v.block = ?2")
                defer { statement.reset() }
                try statement.bind([.uuid(uuid), .integer(block)])
                return try statement.step() ? statement.blob(0) ?? [] : nil
            }
            guard let bytes else {
                finished = true
                return nil
            }
            let voltages = try VoltageBlocks.decode(bytes)
            guard !voltages.isEmpty else {
                finished = true
                return nil
            }
            nextBlock += 1
            return ElectrocardiogramVoltageChunk(firstIndex: Int(block) * VoltageBlocks.size, voltages: voltages)
        }
    }

    /// Makes an iterator that starts at the first voltage.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(readers: readers, uuid: uuid, blockReads: blockReads)
    }

    /// Every voltage, gathered into one array; for small results and tests.
    package func collect() async throws -> [ElectrocardiogramVoltage] {
        var all: [ElectrocardiogramVoltage] = []
        for try await chunk in self { all += chunk.voltages }
        return all
    }
}

/// The voltage blocks a store has read from its database, over every stream.
final class VoltageBlockReads: Sendable {
    let count = Atomic<Int>(0)
}
