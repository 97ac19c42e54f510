import NIOCore
import SalusModel
import SalusProto
import SalusRPC

/// A sample query, as HealthKit's `HKSampleQueryDescriptor`: the samples of one type that match
/// a predicate, sorted, up to a limit.
///
/// ```swift
/// let rem = SampleQueryDescriptor(
///     type: .category(.sleepAnalysis),
///     predicate: .date(start: evening, end: morning) && .sleepAnalysis([.asleepREM]),
///     sortDescriptors: [.startDate()]
/// )
/// let samples = try await rem.result(for: store)
/// ```
///
/// The daemon streams results in pages; ``result(for:)`` collects them, ``samples(for:)``
/// hands them over one by one with memory bounded whatever the result size.
public struct SampleQueryDescriptor: Hashable, Sendable {
    /// The type.
    public var type: SampleType
    /// Which samples; nil means all of the type.
    public var predicate: SamplePredicate?
    /// The order; empty means the store's order (start date, then UUID).
    public var sortDescriptors: [SampleSortDescriptor]
    /// At most this many samples; nil means no limit.
    public var limit: Int?
    /// Clinical documents only (HKDocumentQuery's includeDocumentData): each document's bytes
    /// too. Without it a document comes with its title, patient, author, custodian and effective
    /// time, and empty `data`.
    public var includeDocumentData: Bool

    /// A query for samples of `type` matching `predicate`.
    public init(
        type: SampleType,
        predicate: SamplePredicate? = nil,
        sortDescriptors: [SampleSortDescriptor] = [],
        limit: Int? = nil,
        includeDocumentData: Bool = false
    ) {
        self.type = type
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.includeDocumentData = includeDocumentData
    }

    /// A query for the samples `typed` selects.
    public init(_ typed: SampleTypePredicate, sortDescriptors: [SampleSortDescriptor] = [], limit: Int? = nil) {
        self.init(type: typed.type, predicate: typed.predicate, sortDescriptors: sortDescriptors, limit: limit)
    }

    /// The request sent (`salus.v1.SampleQueryRequest`).
    package var request: Salus_V1_SampleQueryRequest {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type.identifier.rawValue
        if let predicate { request.predicate = predicate.wire }
        request.sort = sortDescriptors.map(\.wire)
        request.limit = UInt64(max(0, limit ?? 0))
        request.includeData = includeDocumentData
        return request
    }

    /// Runs the query and returns every matching sample.
    public func result(for store: HealthStore) async throws(SalusError) -> [Sample] {
        try await samples(for: store).collect()
    }

    /// The matching samples one by one, as the daemon streams them; the query runs when
    /// iteration starts, and stopping early cancels it. Errors are ``SalusError``s.
    public func samples(for store: HealthStore) -> SampleQuerySamples {
        SampleQuerySamples(store: store, request: request)
    }
}

/// The samples of a ``SampleQueryDescriptor``, one by one, as the daemon streams them.
public struct SampleQuerySamples: AsyncSequence, Sendable {
    /// One sample.
    public typealias Element = Sample

    let store: HealthStore
    let request: Salus_V1_SampleQueryRequest

    /// Every sample, gathered into one array.
    func collect() async throws(SalusError) -> [Sample] {
        var samples: [Sample] = []
        do {
            for try await sample in self {
                samples.append(sample)
            }
        } catch {
            throw SalusError.from(error)
        }
        return samples
    }

    /// Starts the query.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: ByteResponseReader(store: store, method: SalusMethods.Store.querySamples, request: request))
    }

    /// Reads pages from the daemon as the samples are consumed, each sample straight from the
    /// page's bytes when it is asked for (``SamplePageDecoder``).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: ByteResponseReader
        var decoder = SamplePageDecoder()
        /// The page being read, and where its next sample starts.
        var page: ByteBuffer?
        var offset = 0
        var received = 0

        init(pages: ByteResponseReader) {
            self.pages = pages
        }

        /// The next sample, or nil at the end; throws ``SalusError``.
        public mutating func next() async throws -> Sample? {
            while true {
                if let bytes = page,
                    let sample = try decoder.nextSample(field: 1, of: bytes, offset: &offset, path: "samples", index: received)
                {
                    received += 1
                    return sample
                }
                page = nil
                guard let bytes = try await pages.next() else { return nil }
                page = bytes
                offset = 0
            }
        }
    }
}
