import CSalusPlugin

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin's `salus.sample-validator/1`, callable from Swift.
struct SampleValidator: @unchecked Sendable {
    // Both tables live as long as the process (libraries are never unloaded); the plugin
    // promises `validate` is thread-safe.
    let table: UnsafePointer<salus_sample_validator>
    let host: UnsafePointer<salus_host>

    /// Runs the validator on a protobuf-encoded sample; nil means acceptable.
    func validate(_ encodedSample: [UInt8]) -> String? {
        guard let validate = table.pointee.validate else { return nil }
        let result = encodedSample.withUnsafeBufferPointer { buffer in
            validate(host, buffer.baseAddress, buffer.count)
        }
        guard let result else { return nil }
        let message = String(cString: result)
        free(result)
        return message
    }
}
