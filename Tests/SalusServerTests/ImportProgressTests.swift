import Foundation
import SalusProto
import SalusRPC
import SalusServer
import SalusTestSupport
import Testing

/// `ImportAppleHealthWithProgress`: the daemon tells how far it has come by what it has
/// processed, not by what it has been sent, in process.
@Suite("salus.v1.Import: progress")
struct ImportProgressTests {
    /// An owner's client of an Import service that reports progress after every chunk.
    static func importer(_ server: ServerHarness) async throws -> RPCClient {
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        ImportService(store: server.services.store, settings: server.services.settings, progressInterval: .zero).register(into: &router)
        return try await server.services.server.connectInProcess(
            router: router, listener: SalusServices.adminListener, admission: server.services.adminAdmission)
    }

    /// An export of `count` heart rates, one a minute, and a workout with a route in a side file
    /// (an import keeps a route's locations even outside its workout).
    static func export(heartRates count: Int) -> Data {
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        func at(_ minute: Int) -> String { ImportMergeTests.stamp(start.addingTimeInterval(Double(minute) * 60), offset: 3600) }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<HealthData locale=\"en_GB\">", " <ExportDate value=\"\(at(0))\"/>"]
        for minute in 0..<count {
            lines.append(
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" "
                    + "startDate=\"\(at(minute))\" endDate=\"\(at(minute))\" value=\"\(60 + minute % 40)\"/>")
        }
        lines += [
            " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" sourceName=\"Watch\" startDate=\"\(at(10))\" endDate=\"\(at(40))\">",
            "  <WorkoutRoute sourceName=\"Watch\" startDate=\"\(at(10))\" endDate=\"\(at(40))\">",
            "   <FileReference path=\"/workout-routes/route_1.gpx\"/>",
            "  </WorkoutRoute>",
            " </Workout>",
            "</HealthData>",
        ]
        return Data(lines.joined(separator: "\n").utf8)
    }


    @Test("progress events grow monotonically, reach their totals only in the last event, and its processed count is the file's elements")
    func progressIsProcessed() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Self.importer(server)
        let data = Self.export(heartRates: 2_500)
        // Counted from the text, not by the importer: each top-level element starts a line with
        // one space of indent.
        let elements = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix(" <") && !$0.hasPrefix(" </") }.count
        #expect(elements == 2_502)
        let sideFiles = [("workout-routes/route_1.gpx", Data(ImportModernWorkoutTests.gpx.utf8))]

        let (events, report) = try await owner.bidirectionalStreaming(
            SalusMethods.Import.importAppleHealthWithProgress
        ) { writer, responses in
            // Sent from a task of its own while the events are read, as salusctl does.
            let sender = Task {
                var offset = 0
                while offset < data.count {
                    let end = min(offset + 8192, data.count)
                    try await writer.write(Salus_V1_ImportChunk.with {
                        if offset == 0 {
                            $0.options.exportBytes = UInt64(data.count)
                            $0.options.sideFiles = UInt64(sideFiles.count)
                        }
                        $0.data = data.subdata(in: offset..<end)
                    })
                    offset = end
                }
                for (path, file) in sideFiles {
                    try await writer.write(Salus_V1_ImportChunk.with {
                        $0.path = path
                        $0.data = file
                        $0.endOfFile = true
                    })
                }
                writer.finish()
            }
            var events: [Salus_V1_ImportProgress] = []
            var report: Salus_V1_ImportReport?
            for try await event in responses {
                switch event.event {
                case .progress(let progress)?: events.append(progress)
                case .report(let last)?: report = last
                case nil: Issue.record("an empty event")
                }
            }
            try await sender.value
            return (events, report)
        }
        let final = try #require(report)
        #expect(final.saved == 2_502 && final.skipped == 0, "\(final)")
        #expect(events.count > 10, "one event per chunk processed: \(events.count)")
        let last = try #require(events.last)
        #expect(last.done && last.exportRead)
        #expect(last.recordsProcessed == UInt64(elements) && last.recordsTotal == UInt64(elements), "\(last)")
        #expect(last.sideFilesProcessed == 1 && last.sideFilesTotal == 1)
        #expect(last.bytesProcessed == UInt64(data.count) && last.bytesTotal == UInt64(data.count))
        #expect(last.saved == final.saved && last.keptExisting == final.keptExisting)
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.bytesProcessed >= earlier.bytesProcessed && later.recordsProcessed >= earlier.recordsProcessed, "\(earlier) then \(later)")
            #expect(later.sideFilesProcessed >= earlier.sideFilesProcessed && later.saved >= earlier.saved)
            #expect(later.elapsedSeconds >= earlier.elapsedSeconds)
        }
        for event in events.dropLast() {
            #expect(!event.done)
            #expect(event.recordsProcessed + event.sideFilesProcessed < event.recordsTotal + event.sideFilesTotal, "before the end: \(event)")
            // Processed means saved: never ahead of what the store holds.
            #expect(event.recordsProcessed <= event.saved + event.keptExisting + event.skipped + 1, "\(event)")
        }
        // Half-way through export.xml, the estimate is within a tenth of the truth.
        let middle = try #require(events.first { $0.bytesProcessed * 2 >= UInt64(data.count) })
        #expect(abs(Double(middle.recordsTotal) - Double(elements)) < Double(elements) / 10, "\(middle)")
        await owner.close()
        await server.stop()
    }
}
