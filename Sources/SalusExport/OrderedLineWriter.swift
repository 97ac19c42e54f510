import Foundation
import SalusModel

/// Writes one line per sample, formatted on other threads while the next samples arrive, in the
/// samples' order: chunks of `chunkSize` samples are formatted by tasks of their own, at most
/// one per processor at once, and written as each earliest chunk is done.
struct OrderedLineWriter {
    /// One sample's line, without its newline.
    let format: @Sendable (Sample) throws -> String
    /// Where the lines go.
    let sink: FileHandle
    let chunkSize: Int
    let inFlight: Int
    private var chunk: [Sample] = []
    private var pending: [Task<Data, any Error>] = []

    init(sink: FileHandle, chunkSize: Int = 2_048, format: @escaping @Sendable (Sample) throws -> String) {
        self.sink = sink
        self.format = format
        self.chunkSize = chunkSize
        inFlight = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Adds a sample's line; writes the lines of earlier chunks once their formatting is done and
    /// enough are waiting.
    mutating func add(_ sample: Sample) async throws {
        chunk.append(sample)
        if chunk.count >= chunkSize { try await submit() }
    }

    /// Writes every line added.
    mutating func finish() async throws {
        try await submit()
        while !pending.isEmpty { sink.write(try await pending.removeFirst().value) }
    }

    private mutating func submit() async throws {
        guard !chunk.isEmpty else { return }
        let samples = chunk
        chunk.removeAll(keepingCapacity: true)
        let format = self.format
        pending.append(Task {
            var lines = Data()
            lines.reserveCapacity(samples.count * 256)
            for sample in samples {
                lines.append(contentsOf: try format(sample).utf8)
                lines.append(0x0A)
            }
            return lines
        })
        while pending.count > inFlight { sink.write(try await pending.removeFirst().value) }
    }
}
