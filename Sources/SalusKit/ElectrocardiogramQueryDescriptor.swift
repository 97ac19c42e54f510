import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// The voltages of one electrocardiogram, as HealthKit's `HKElectrocardiogramQueryDescriptor`.
///
/// ```swift
/// let ecg = try await SampleQueryDescriptor(type: .electrocardiogram).result(for: store).first!
/// for try await voltage in ElectrocardiogramQueryDescriptor(ecg).voltages(for: store) {
///     plot(voltage.timeSinceSampleStart, voltage.microvolts)
/// }
/// ```
///
/// Sample queries return electrocardiograms without their voltages; this query streams them from
/// the daemon in chunks of up to 1,024, each sent only when the previous ones were consumed, so
/// memory stays bounded. An electrocardiogram that does not exist and one this app may not read
/// fail alike, with ``SalusError/Code/notFound``.
public struct ElectrocardiogramQueryDescriptor: Hashable, Sendable {
    /// The electrocardiogram sample's UUID.
    public var uuid: UUID

    /// A query for the voltages of the electrocardiogram with this UUID.
    public init(uuid: UUID) {
        self.uuid = uuid
    }

    /// A query for the voltages of this electrocardiogram sample (from a query result or a
    /// save's ``SaveResult/uuid``).
    public init(_ electrocardiogram: Sample) {
        self.init(uuid: electrocardiogram.uuid)
    }

    /// The request sent (`salus.v1.ElectrocardiogramVoltageQueryRequest`).
    package var request: Salus_V1_ElectrocardiogramVoltageQueryRequest {
        var request = Salus_V1_ElectrocardiogramVoltageQueryRequest()
        request.uuid = WireUUID.bytes(uuid)
        return request
    }

    /// Every voltage, in recording order.
    public func result(for store: HealthStore) async throws(SalusError) -> [ElectrocardiogramVoltage] {
        var voltages: [ElectrocardiogramVoltage] = []
        do {
            for try await voltage in self.voltages(for: store) {
                voltages.append(voltage)
            }
        } catch {
            throw SalusError.from(error)
        }
        return voltages
    }

    /// The voltages one by one, in recording order, as the daemon streams them; the query runs
    /// when iteration starts, and stopping early cancels it. Errors are ``SalusError``s.
    public func voltages(for store: HealthStore) -> ElectrocardiogramVoltages {
        ElectrocardiogramVoltages(store: store, request: request)
    }
}

/// The voltages of an ``ElectrocardiogramQueryDescriptor``, one by one, as the daemon streams
/// them.
public struct ElectrocardiogramVoltages: AsyncSequence, Sendable {
    /// One voltage measurement.
    public typealias Element = ElectrocardiogramVoltage

    let store: HealthStore
    let request: Salus_V1_ElectrocardiogramVoltageQueryRequest

    /// Starts the query.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            chunks: ResponseReader(store: store, method: SalusMethods.Store.queryElectrocardiogramVoltages, request: request))
    }

    /// Reads chunks from the daemon as the voltages are consumed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: ResponseReader<Salus_V1_ElectrocardiogramVoltageBatch>
        var chunk: [Salus_V1_ElectrocardiogramVoltage] = []
        var position = 0
        var received = 0

        init(chunks: ResponseReader<Salus_V1_ElectrocardiogramVoltageBatch>) {
            self.chunks = chunks
        }

        /// The next voltage, or nil at the end; throws ``SalusError``.
        public mutating func next() async throws -> ElectrocardiogramVoltage? {
            while position == chunk.count {
                guard let batch = try await chunks.next() else { return nil }
                guard batch.firstIndex == UInt64(received) else {
                    throw SalusError.malformed(
                        field: "firstIndex", value: "\(batch.firstIndex)",
                        expected: "\(received), the number of voltages received before the chunk")
                }
                chunk = batch.voltages
                position = 0
            }
            defer {
                position += 1
                received += 1
            }
            do {
                return try ElectrocardiogramVoltage(wire: chunk[position], path: "voltages[\(received)]")
            } catch {
                throw SalusError.malformed(field: error.field, value: error.value, expected: error.expected)
            }
        }
    }
}
