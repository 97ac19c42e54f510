import SalusProto
import SalusRPC

/// salus.v1.Diagnostics: one method of each call kind, for checking a connection.
package enum DiagnosticsService {
    /// Sleep's upper bound.
    package static let maxSleepMilliseconds: UInt32 = 60_000


    /// Adds the service's methods to `router`.
    package static func register(into router: inout RPCRouter) {
        router.registerUnary(SalusMethods.Diagnostics.echo) { (request: Salus_V1_EchoRequest, _) -> Salus_V1_EchoResponse in
            var response = Salus_V1_EchoResponse()
            response.payload = request.payload
            response.text = request.text
            return response
        }
        router.registerServerStreaming(SalusMethods.Diagnostics.generate) { (request: Salus_V1_GenerateRequest, writer: RPCWriter<Salus_V1_EchoResponse>, _) in
            guard request.size <= 4_000_000 else {
                throw RPCError.invalidArgument(
                    field: "size", value: "\(request.size)", expected: "at most 4000000 bytes per message"
                )
            }
            var message = Salus_V1_EchoResponse()
            message.payload = Data(repeating: 0x5A, count: Int(request.size))
            var sequence: UInt64 = 0
            while request.count == 0 || sequence < request.count {
                try Task.checkCancellation()
                message.sequence = sequence
                try await writer.write(message)
                sequence += 1
            }
        }
        router.registerClientStreaming(SalusMethods.Diagnostics.collect) { (requests: RPCRequestStream<Salus_V1_EchoRequest>, _) -> Salus_V1_CollectResponse in
            var response = Salus_V1_CollectResponse()
            for try await request in requests {
                response.messages += 1
                response.bytes += UInt64(request.payload.count + request.text.utf8.count)
            }
            return response
        }
        router.registerBidirectionalStreaming(SalusMethods.Diagnostics.echoStream) {
            (requests: RPCRequestStream<Salus_V1_EchoRequest>, writer: RPCWriter<Salus_V1_EchoResponse>, _) in
            var sequence: UInt64 = 0
            for try await request in requests {
                var response = Salus_V1_EchoResponse()
                response.payload = request.payload
                response.text = request.text
                response.sequence = sequence
                sequence += 1
                try await writer.write(response)
            }
        }
        router.registerUnary(SalusMethods.Diagnostics.sleep) { (request: Salus_V1_SleepRequest, _) -> Salus_V1_SleepResponse in
            guard request.milliseconds <= maxSleepMilliseconds else {
                throw RPCError.invalidArgument(
                    field: "milliseconds", value: "\(request.milliseconds)", expected: "at most \(maxSleepMilliseconds)"
                )
            }
            try await Task.sleep(for: .milliseconds(Int(request.milliseconds)))
            var response = Salus_V1_SleepResponse()
            response.sleptMilliseconds = request.milliseconds
            return response
        }
    }
}

import Foundation
