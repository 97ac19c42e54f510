import CSalusPlugin
import Foundation
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin's `salus.sample-validator/1`, as the catalog's `SampleValidating`.
///
/// Samples cross the boundary protobuf-encoded (`salus.v1.Sample`). A 1.1 table answers in parts
/// (`validate_fields`); a 1.0 table answers with free text, whose `field:` prefix is read as the
/// field and whose text after "expected" as what was expected.
struct SampleValidator: SampleValidating, @unchecked Sendable {
    // Both tables live as long as the process (libraries are never unloaded); the plugin
    // promises its functions are thread-safe.
    let table: UnsafePointer<salus_sample_validator>
    let host: UnsafePointer<salus_host>
    let pluginID: String

    /// Whether the table has the 1.1 `validate_fields`.
    var answersInParts: Bool {
        let size = Int(table.pointee.struct_size)
        let end = MemoryLayout<salus_sample_validator>.offset(of: \salus_sample_validator.validate_fields)!
            + MemoryLayout<UnsafeRawPointer>.size
        return size >= end && table.pointee.validate_fields != nil
    }

    func validationErrors(of sample: Sample, at path: String) -> [ValidationError] {
        guard let bytes: [UInt8] = try? sample.wire.serializedBytes() else {
            return [ValidationError(
                reason: .refusedByPlugin, field: path, value: "a sample of \(sample.type)",
                expected: "a sample that encodes as salus.v1.Sample for the \(pluginID) validator")]
        }
        guard let refusal = validate(encodedSample: bytes) else { return [] }
        return [refusal.error(at: path, pluginID: pluginID)]
    }

    /// Runs the validator on a protobuf-encoded sample; nil means acceptable.
    func validate(encodedSample: [UInt8]) -> PluginSampleRefusal? {
        if answersInParts, let validateFields = table.pointee.validate_fields {
            var parts = salus_validation_error(field: nil, value: nil, expected: nil, message: nil)
            let refused = encodedSample.withUnsafeBufferPointer { buffer in
                validateFields(host, buffer.baseAddress, buffer.count, &parts)
            }
            let strings = [parts.field, parts.value, parts.expected, parts.message].map { pointer -> String? in
                defer { free(pointer) }
                return pointer.map { String(cString: $0) }
            }
            guard refused != 0 else { return nil }
            return PluginSampleRefusal(field: strings[0] ?? "", value: strings[1] ?? "", expected: strings[2] ?? "", message: strings[3])
        }
        guard let validate = table.pointee.validate else { return nil }
        let result = encodedSample.withUnsafeBufferPointer { buffer in
            validate(host, buffer.baseAddress, buffer.count)
        }
        guard let result else { return nil }
        let message = String(cString: result)
        free(result)
        return PluginSampleRefusal(freeText: message)
    }
}

/// A plugin validator's refusal, in parts.
package struct PluginSampleRefusal: Equatable, Sendable {
    /// The field path inside the sample ("endDate"); empty for the whole sample.
    package var field: String
    /// The offending value as text; empty when the plugin did not say.
    package var value: String
    /// What would have been accepted.
    package var expected: String
    /// The plugin's own sentence, if it gave one.
    package var message: String?

    package init(field: String, value: String, expected: String, message: String?) {
        self.field = field
        self.value = value
        self.expected = expected
        self.message = message
    }

    /// Reads a 1.0 validator's text: "field: what is wrong; expected what". A first word
    /// without spaces before the colon is the field; "metadata KEY:" names a metadata key.
    package init(freeText message: String) {
        var field = ""
        var rest = Substring(message)
        if let colon = message.firstIndex(of: ":") {
            let head = message[..<colon]
            if !head.contains(" ") {
                field = String(head)
                rest = message[message.index(after: colon)...]
            } else if head.hasPrefix("metadata "), head.split(separator: " ").count == 2 {
                field = "metadata." + head.dropFirst("metadata ".count)
                rest = message[message.index(after: colon)...]
            }
        }
        var expected = rest.trimmingCharacters(in: .whitespaces)
        var value = ""
        if let range = rest.range(of: "; expected ") {
            value = rest[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            expected = String(rest[range.upperBound...])
        }
        self.init(field: field, value: value, expected: expected, message: rest.trimmingCharacters(in: .whitespaces))
    }

    /// The validation error of the sample at `path` ("samples[3]").
    func error(at path: String, pluginID: String) -> ValidationError {
        ValidationError(
            reason: .refusedByPlugin, field: field.isEmpty ? path : "\(path).\(field)", value: value,
            expected: expected, message: message)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: CharacterSet) -> String {
        String(self).trimmingCharacters(in: set)
    }
}
