import CSalusPlugin
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A library that passed the binary checks and was initialized: its entry, host table and
/// manifest bytes. Lives for the rest of the process, like the library itself.
final class OpenedLibrary: @unchecked Sendable {
    // Immutable after creation; the pointers stay valid because libraries are never closed.
    let entry: UnsafePointer<salus_plugin_entry>
    let host: UnsafePointer<salus_host>
    let manifestBytes: [UInt8]
    let validator: UnsafePointer<salus_sample_validator>?
    let abi: salus_abi_version

    init(entry: UnsafePointer<salus_plugin_entry>, host: UnsafePointer<salus_host>, manifestBytes: [UInt8],
         validator: UnsafePointer<salus_sample_validator>?, abi: salus_abi_version) {
        self.entry = entry
        self.host = host
        self.manifestBytes = manifestBytes
        self.validator = validator
        self.abi = abi
    }
}

/// Opens plugin libraries: dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), never dlclose, the
/// entry and ABI checks, init exactly once per process.
///
/// dlopen returns the same handle for a library that is already open (by path or by file), so
/// the outcome is remembered per handle: a second load or check in the same process reuses the
/// first init and manifest instead of calling init again.
enum LibraryLoader {
    /// The ABI this host speaks.
    static let hostABI = salus_abi_version(
        major: UInt16(SALUS_PLUGIN_ABI_MAJOR), minor: UInt16(SALUS_PLUGIN_ABI_MINOR))

    /// The size of a 1.0 entry: every field up to and including get_factory.
    static let minimumEntrySize = MemoryLayout<salus_plugin_entry>.offset(of: \salus_plugin_entry.get_factory)!
        + MemoryLayout<UnsafeRawPointer>.size

    /// The size of a 1.0 sample validator.
    static let minimumValidatorSize = MemoryLayout<salus_sample_validator>.offset(of: \salus_sample_validator.validate)!
        + MemoryLayout<UnsafeRawPointer>.size

    private static let outcomes = Mutex<[UInt: Result<OpenedLibrary, PluginRefusal>]>([:])

    /// Where plugins' log lines go.
    static let logger = Mutex(Logger(label: "salus.plugins"))

    /// Opens, checks and initializes one library (or returns the remembered outcome).
    static func open(path: String) -> Result<OpenedLibrary, PluginRefusal> {
        dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            return .failure(PluginRefusal(.notALibrary, "not a loadable shared library: \(reason)"))
        }
        // Deliberately never dlclose(handle): see salus_plugin.h rule 1.
        let key = UInt(bitPattern: handle)
        return outcomes.withLock { outcomes in
            if let known = outcomes[key] { return known }
            let outcome = initialize(handle: handle, path: path)
            outcomes[key] = outcome
            return outcome
        }
    }

    private typealias GetEntry = @convention(c) (salus_abi_version) -> UnsafePointer<salus_plugin_entry>?

    private static func initialize(handle: UnsafeMutableRawPointer, path: String) -> Result<OpenedLibrary, PluginRefusal> {
        guard let symbol = dlsym(handle, SALUS_PLUGIN_ENTRY_SYMBOL) else {
            return .failure(PluginRefusal(.missingEntrySymbol, "does not export \(SALUS_PLUGIN_ENTRY_SYMBOL); expected a function with default visibility declared as in salus_plugin.h (Swift: @c(salus_plugin_get_entry))"))
        }
        let getEntry = unsafeBitCast(symbol, to: GetEntry.self)
        guard let entry = getEntry(hostABI) else {
            return .failure(PluginRefusal(.entryRefused, "\(SALUS_PLUGIN_ENTRY_SYMBOL) returned NULL for host ABI \(hostABI.major).\(hostABI.minor); expected an entry (the plugin may not support this ABI)"))
        }
        // struct_size and abi lead every entry, so they can be read before the size is known.
        let raw = UnsafeRawPointer(entry)
        let structSize = raw.load(as: UInt32.self)
        let abi = raw.load(fromByteOffset: MemoryLayout<salus_plugin_entry>.offset(of: \salus_plugin_entry.abi)!, as: salus_abi_version.self)
        guard abi.major == hostABI.major else {
            return .failure(PluginRefusal(.abiMajorMismatch, "built for plugin ABI \(abi.major).\(abi.minor); this host speaks ABI \(hostABI.major).\(hostABI.minor) and needs major \(hostABI.major) (rebuild the plugin against this salus_plugin.h)"))
        }
        guard Int(structSize) >= minimumEntrySize else {
            return .failure(PluginRefusal(.structTooSmall, "entry struct_size is \(structSize) bytes; expected at least \(minimumEntrySize), the size of salus_plugin_entry in ABI 1.0 (fields are only ever appended)"))
        }
        guard let initialize = entry.pointee.`init` else {
            return .failure(PluginRefusal(.missingFunction, "entry.init is NULL; expected an init function"))
        }
        guard let getManifest = entry.pointee.get_manifest else {
            return .failure(PluginRefusal(.missingFunction, "entry.get_manifest is NULL; expected a function returning the manifest"))
        }

        let host = makeHost(path: path)
        var error: UnsafeMutablePointer<CChar>?
        let status = initialize(host, &error)
        let message = error.map { String(cString: $0) }
        free(error)
        guard status == SALUS_OK else {
            return .failure(PluginRefusal(.initFailed, "init returned status \(status)\(message.map { ": \($0)" } ?? " without a message"); expected SALUS_OK (0)"))
        }

        var bytes = salus_bytes(data: nil, size: 0)
        let manifestStatus = getManifest(&bytes)
        guard manifestStatus == SALUS_OK else {
            return .failure(PluginRefusal(.manifestUnavailable, "get_manifest returned status \(manifestStatus); expected SALUS_OK (0) and the encoded manifest"))
        }
        guard let data = bytes.data, bytes.size > 0 else {
            return .failure(PluginRefusal(.manifestUnavailable, "get_manifest returned no bytes; expected a protobuf-encoded salus.v1.PluginManifest"))
        }
        let manifestBytes = Array(UnsafeBufferPointer(start: data, count: bytes.size))

        var validator: UnsafePointer<salus_sample_validator>?
        if let getFactory = entry.pointee.get_factory,
            let factory = getFactory(SALUS_SAMPLE_VALIDATOR_FACTORY_ID)
        {
            let table = factory.assumingMemoryBound(to: salus_sample_validator.self)
            let size = factory.load(as: UInt32.self)
            guard Int(size) >= minimumValidatorSize else {
                return .failure(PluginRefusal(.structTooSmall, "\(SALUS_SAMPLE_VALIDATOR_FACTORY_ID) struct_size is \(size) bytes; expected at least \(minimumValidatorSize)"))
            }
            guard table.pointee.validate != nil else {
                return .failure(PluginRefusal(.missingFunction, "\(SALUS_SAMPLE_VALIDATOR_FACTORY_ID).validate is NULL; expected a function or no factory"))
            }
            validator = table
        }
        return .success(OpenedLibrary(entry: entry, host: host, manifestBytes: manifestBytes, validator: validator, abi: abi))
    }

    /// Per-library context behind `salus_host.host_data`: the path, for log lines.
    private final class HostContext {
        let path: String
        init(path: String) { self.path = path }
    }

    /// A host table for one library; it is never freed (the library is never unloaded).
    private static func makeHost(path: String) -> UnsafePointer<salus_host> {
        let host = UnsafeMutablePointer<salus_host>.allocate(capacity: 1)
        host.initialize(to: salus_host(
            struct_size: UInt32(MemoryLayout<salus_host>.size),
            abi: hostABI,
            host_data: Unmanaged.passRetained(HostContext(path: path)).toOpaque(),
            alloc: { _, size in malloc(size) },
            strdup: { _, string in string.flatMap { strdup($0) } },
            log: { host, level, message in
                guard let host, let message, let context = host.pointee.host_data else { return }
                let path = Unmanaged<HostContext>.fromOpaque(context).takeUnretainedValue().path
                let text = String(cString: message)
                let logLevel: Logger.Level = switch level {
                case SALUS_LOG_TRACE: .trace
                case SALUS_LOG_DEBUG: .debug
                case SALUS_LOG_INFO: .info
                case SALUS_LOG_NOTICE: .notice
                case SALUS_LOG_WARNING: .warning
                default: .error
                }
                LibraryLoader.logger.withLock { $0 }.log(level: logLevel, "\(text)", metadata: ["plugin": "\(path)"])
            }
        ))
        return UnsafePointer(host)
    }
}
