import CSalusPlugin
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin's content: its manifest and, optionally, a sample validator.
public struct SalusPlugin: Sendable {
    /// The manifest the host reads.
    public var manifest: PluginManifest
    /// Checks a sample of one of the plugin's types; returns nil when acceptable, otherwise the
    /// refusal naming the field, the value and what was expected. Called from several threads.
    public var validator: (@Sendable (SampleView) -> SampleRefusal?)?

    /// Creates a plugin.
    public init(manifest: PluginManifest, validator: (@Sendable (SampleView) -> SampleRefusal?)? = nil) {
        self.manifest = manifest
        self.validator = validator
    }
}

/// Builds the C entry table (`salus_plugin_entry`) for a Swift plugin.
///
/// A plugin exports the ABI's one function and forwards to ``entry(hostABI:_:)``:
/// ```swift
/// @c(salus_plugin_get_entry)
/// public func salusPluginGetEntry(_ hostABI: salus_abi_version) -> UnsafePointer<salus_plugin_entry>? {
///     PluginEntry.entry(hostABI: hostABI) { SalusPlugin(manifest: ..., validator: ...) }
/// }
/// ```
/// Only C types cross the boundary: the manifest as protobuf bytes, samples as protobuf bytes,
/// error messages allocated with the host's allocator. SalusPluginKit is compiled into each
/// plugin, so this state is per plugin.
public enum PluginEntry {
    private struct State: @unchecked Sendable {
        var plugin: SalusPlugin?
        // Written once under the lock, then only read; the entry is immutable.
        var entry: UnsafePointer<salus_plugin_entry>?
    }

    // The host pointer, manifest bytes and validator are written once (in `entry` under the
    // lock, or in init, which the host calls once before anything else) and only read after.
    private final class Storage: @unchecked Sendable {
        let state = Mutex(State())
        nonisolated(unsafe) var host: UnsafePointer<salus_host>?
        nonisolated(unsafe) var manifestBytes: UnsafeMutableBufferPointer<UInt8>?
        nonisolated(unsafe) var validator: (@Sendable (SampleView) -> SampleRefusal?)?
    }

    private static let storage = Storage()

    /// The entry for this plugin; builds it on the first call. Returns nil when the host's ABI
    /// major is not ``SALUS_PLUGIN_ABI_MAJOR``.
    public static func entry(
        hostABI: salus_abi_version, _ makePlugin: () -> SalusPlugin
    ) -> UnsafePointer<salus_plugin_entry>? {
        guard hostABI.major == UInt16(SALUS_PLUGIN_ABI_MAJOR) else { return nil }
        return storage.state.withLock { state in
            if let entry = state.entry { return entry }
            let plugin = makePlugin()
            state.plugin = plugin
            let bytes = plugin.manifest.encoded()
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            _ = buffer.initialize(from: bytes)
            storage.manifestBytes = UnsafeMutableBufferPointer(rebasing: buffer[0..<bytes.count])
            storage.validator = plugin.validator
            let entry = UnsafeMutablePointer<salus_plugin_entry>.allocate(capacity: 1)
            entry.initialize(to: salus_plugin_entry(
                struct_size: UInt32(MemoryLayout<salus_plugin_entry>.size),
                abi: salus_abi_version(
                    major: UInt16(SALUS_PLUGIN_ABI_MAJOR), minor: UInt16(SALUS_PLUGIN_ABI_MINOR)),
                init: { host, _ in
                    PluginEntry.storage.host = host
                    return SALUS_OK
                },
                deinit: nil,
                get_manifest: { out in
                    guard let out, let bytes = PluginEntry.storage.manifestBytes else {
                        return SALUS_ERR_INVALID_ARGUMENT
                    }
                    out.pointee = salus_bytes(data: UnsafePointer(bytes.baseAddress), size: bytes.count)
                    return SALUS_OK
                },
                get_factory: { id in
                    guard let id, PluginEntry.storage.validator != nil,
                        String(cString: id) == SALUS_SAMPLE_VALIDATOR_FACTORY_ID
                    else { return nil }
                    return UnsafeRawPointer(PluginEntry.validatorTable)
                }
            ))
            state.entry = UnsafePointer(entry)
            return UnsafePointer(entry)
        }
    }

    nonisolated(unsafe) private static let validatorTable: UnsafePointer<salus_sample_validator> = {
        let table = UnsafeMutablePointer<salus_sample_validator>.allocate(capacity: 1)
        table.initialize(to: salus_sample_validator(
            struct_size: UInt32(MemoryLayout<salus_sample_validator>.size),
            validate: { host, data, size in
                guard let refusal = PluginEntry.refusal(data, size) else { return nil }
                return PluginEntry.hostString(refusal.text, host: host)
            },
            validate_fields: { host, data, size, out in
                guard let refusal = PluginEntry.refusal(data, size) else { return 0 }
                out?.pointee = salus_validation_error(
                    field: PluginEntry.hostString(refusal.field, host: host),
                    value: PluginEntry.hostString(refusal.value, host: host),
                    expected: PluginEntry.hostString(refusal.expected, host: host),
                    message: refusal.message.flatMap { PluginEntry.hostString($0, host: host) })
                return 1
            }
        ))
        return UnsafePointer(table)
    }()

    /// The plugin's verdict on an encoded sample; an undecodable one is refused.
    private static func refusal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> SampleRefusal? {
        guard let validator = storage.validator else { return nil }
        do throws(SampleDecodingError) {
            return validator(try SampleView(decoding: data, count: size))
        } catch {
            return SampleRefusal(
                field: "", value: "\(size) bytes", expected: "a protobuf-encoded salus.v1.Sample",
                message: "undecodable protobuf (\(error.description))")
        }
    }

    /// Copies a message into memory the host frees (its strdup; malloc only without a host).
    static func hostString(_ message: String, host: UnsafePointer<salus_host>?) -> UnsafeMutablePointer<CChar>? {
        message.withCString { cString in
            if let host, let hostStrdup = host.pointee.strdup {
                return hostStrdup(host, cString)
            }
            return strdup(cString)
        }
    }

    /// Writes a line to the daemon's log (dropped before init).
    public static func log(_ level: salus_log_level, _ message: String) {
        guard let host = storage.host, let log = host.pointee.log else { return }
        message.withCString { log(host, level, $0) }
    }
}
