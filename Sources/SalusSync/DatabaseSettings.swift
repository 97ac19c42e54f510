import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
import Glibc
#endif

/// Where the PostgreSQL server is and how to reach it, read from a connection string.
///
/// Rules:
/// 1. The connection string comes from a file, a systemd credential or the environment, never
///    the command line. Why: a command line is visible to every user of the machine (`ps`,
///    `/proc/PID/cmdline`), and the string usually carries a password. `salus-sync` has no option
///    that takes the string itself.
/// 2. A file is preferred: `--database-file PATH`, else the credential ``credentialName`` in
///    `$CREDENTIALS_DIRECTORY` (systemd's `LoadCredential=`), else ``environmentVariable``.
///    Why: a process's environment is readable by the same user's other processes and by root
///    (`ps e`, `/proc/PID/environ`), is inherited by every child, and ends up in crash reports
///    and service dumps; a file is read once and kept nowhere else.
/// 3. A file that its group or other users may read or write is refused, naming its mode and
///    the fix (`chmod 600`). Why: the password in it would be theirs.
/// 4. No error echoes a value of the string: errors name the parameter (a misspelt one by its
///    key when the key looks like one, else by its position) and what was expected. Why: a
///    value may be the password, or part of it after a quoting mistake, and errors go to logs.
///
/// Two spellings are accepted, as libpq's: a URL
/// (`postgresql://user:password@host:5432/db?sslmode=verify-full&sslrootcert=/etc/ca.pem`) and
/// key=value pairs (`host=/run/postgresql port=5432 user=salus dbname=care sslmode=disable`).
/// A host that starts with `/` is the folder of the server's Unix socket (`.s.PGSQL.<port>`).
package struct DatabaseSettings: Sendable, Hashable {
    /// How the connection is protected, as libpq's `sslmode`.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without checking its certificate.
        case prefer
        /// TLS always, without checking the certificate.
        case require
        /// TLS always; the certificate must chain to the root in `sslrootcert`.
        case verifyCA = "verify-ca"
        /// TLS always; the certificate must chain to `sslrootcert` and name the host.
        case verifyFull = "verify-full"
    }

    /// The host name or address; nil with a Unix socket.
    package var host: String?
    /// The folder of the server's Unix socket; nil over TCP.
    package var socketDirectory: String?
    /// The port (also names the Unix socket file).
    package var port: Int
    /// The user name; without `user=` in the string, the name of the user this process runs as
    /// (``operatingSystemUser(origin:)``), as libpq's.
    package var user: String
    /// The password, if any.
    package var password: String?
    /// The database; nil means the user's name, as the server decides.
    package var database: String?
    /// How the connection is protected.
    package var tlsMode: TLSMode
    /// The certificate authority file (PEM) for `verify-ca` and `verify-full`.
    package var rootCertificate: String?

    /// Settings for a server on `host` (or a socket folder) with `user`.
    package init(
        host: String? = nil, socketDirectory: String? = nil, port: Int = 5432, user: String, password: String? = nil,
        database: String? = nil, tlsMode: TLSMode = .prefer, rootCertificate: String? = nil
    ) {
        self.host = host
        self.socketDirectory = socketDirectory
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
        self.rootCertificate = rootCertificate
    }

    /// The name of the environment variable that may hold the connection string.
    package static let environmentVariable = "SALUS_SYNC_DATABASE"
    /// The name of the systemd credential that may hold the connection string, read from
    /// `$CREDENTIALS_DIRECTORY` (`LoadCredential=salus-sync-database:PATH`).
    package static let credentialName = "salus-sync-database"
    /// The environment variable systemd sets to the folder of a service's credentials.
    package static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"

    /// The settings from `--database-file` when given, else from the credential
    /// ``credentialName`` in `$CREDENTIALS_DIRECTORY` when it is there, else from
    /// ``environmentVariable`` (rule 2). A file must be private to its owner (rule 3).
    package static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SyncError) -> DatabaseSettings {
        if let file {
            return try parse(try readPrivateFile(file, field: "--database-file"), origin: file)
        }
        if let folder = environment[credentialsDirectoryVariable], !folder.isEmpty {
            let path = folder + "/" + credentialName
            if access(path, F_OK) == 0 {
                return try parse(try readPrivateFile(path, field: "$\(credentialsDirectoryVariable)/\(credentialName)"), origin: path)
            }
        }
        guard let text = environment[environmentVariable], !text.isEmpty else {
            throw SyncError(
                .configuration, "no connection string", field: environmentVariable, value: "",
                expected: "--database-file PATH (a file only you may read), a systemd credential \(credentialName) "
                    + "in $\(credentialsDirectoryVariable), or \(environmentVariable) set to a PostgreSQL connection string")
        }
        return try parse(text, origin: environmentVariable)
    }

    /// The longest connection-string file read, in bytes.
    static let maximumFileSize = 64 * 1024

    /// The text of the file at `path`, trimmed, after checking that it is a regular file that
    /// neither its group nor others may use (rule 3); `field` names where the path came from.
    static func readPrivateFile(_ path: String, field: String) throws(SyncError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SyncError(
                .configuration, "cannot read the connection string: \(String(cString: strerror(errno)))", field: field, value: path,
                expected: "a readable file holding a PostgreSQL connection string")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw SyncError(.configuration, "not a regular file", field: field, value: path, expected: "a file holding a PostgreSQL connection string")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw SyncError(
                .configuration, "the connection string's file is open to other users (mode \(String(mode, radix: 8)))", field: field,
                value: path, expected: "a file only its owner may read or write: chmod 600 \(path)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maximumFileSize {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw SyncError(
                    .configuration, "cannot read the connection string: \(String(cString: strerror(errno)))", field: field, value: path,
                    expected: "a readable file holding a PostgreSQL connection string")
            }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        guard bytes.count <= maximumFileSize else {
            throw SyncError(.configuration, "the file is larger than \(maximumFileSize) bytes", field: field, value: path, expected: "a PostgreSQL connection string")
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The parameters a connection string may set.
    static let parameterNames = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout", "application_name"]

    /// How an error names the parameter `key`, the `position`th of the string (rule 4): by its
    /// key when it is a known one, or (`unknownByKey`) looks like one (up to 32 lower-case
    /// letters and underscores: a misspelling), else by its position.
    static func parameter(_ key: String, position: Int, unknownByKey: Bool) -> String {
        if parameterNames.contains(key) { return key }
        if unknownByKey, (1...32).contains(key.count), key.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" }) { return key }
        return "parameter \(position)"
    }

    /// Parses a URL or key=value connection string; `origin` names where it came from in errors.
    package static func parse(_ text: String, origin: String = "connection string") throws(SyncError) -> DatabaseSettings {
        let pairs: [(String, String)]
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            pairs = try urlPairs(text, origin: origin)
        } else {
            pairs = try keywordPairs(text, origin: origin)
        }
        var settings = DatabaseSettings(user: "")
        var userGiven = false
        for (index, (key, value)) in pairs.enumerated() {
            switch key {
            case "host":
                if value.hasPrefix("/") { settings.socketDirectory = value; settings.host = nil } else if !value.isEmpty { settings.host = value }
            case "port":
                guard let port = Int(value), (1...65535).contains(port) else {
                    throw SyncError(.configuration, "bad port", field: "\(origin): port", expected: "a number from 1 to 65535")
                }
                settings.port = port
            case "user":
                settings.user = value
                userGiven = !value.isEmpty
            case "password": settings.password = value
            case "dbname": settings.database = value.isEmpty ? nil : value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw SyncError(
                        .configuration, "unknown sslmode", field: "\(origin): sslmode",
                        expected: TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                settings.tlsMode = mode
            case "sslrootcert": settings.rootCertificate = value
            case "connect_timeout", "application_name": break
            default:
                throw SyncError(
                    .configuration, "unknown connection parameter",
                    field: "\(origin): \(parameter(key, position: index + 1, unknownByKey: true))",
                    expected: parameterNames.dropLast().joined(separator: ", ") + " or " + parameterNames.last!)
            }
        }
        if !userGiven { settings.user = try operatingSystemUser(origin: origin) }
        if settings.host == nil && settings.socketDirectory == nil { settings.host = "localhost" }
        if settings.socketDirectory != nil && settings.tlsMode != .disable && settings.tlsMode != .prefer {
            throw SyncError(.configuration, "TLS over a Unix socket", field: "\(origin): sslmode", value: settings.tlsMode.rawValue, expected: "disable or prefer with a socket folder as host")
        }
        if (settings.tlsMode == .verifyCA || settings.tlsMode == .verifyFull) && settings.rootCertificate == nil {
            throw SyncError(
                .configuration, "no certificate authority to verify against", field: "\(origin): sslrootcert", value: "",
                expected: "the path of a PEM file with sslmode=\(settings.tlsMode.rawValue)")
        }
        return settings
    }

    /// The name of the user this process runs as (`getpwuid(geteuid())`): the user of a
    /// connection string without `user=`, as libpq's.
    ///
    /// Why not `$USER` or `$LOGNAME`: they are whatever the parent process set (a service under
    /// systemd has none, `sudo` and `su` keep or change them), so the same string would connect
    /// as a different role from one start to the next; and not a fixed `postgres`, the
    /// superuser, which a string that names no one must never become. libpq's `PGUSER` and the
    /// other `PG*` variables are not read: the string says everything (rule 1).
    package static func operatingSystemUser(origin: String = "connection string") throws(SyncError) -> String {
        let uid = geteuid()
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16_384)
        let failure = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
        guard failure == 0, let found = result, let name = found.pointee.pw_name, name.pointee != 0 else {
            throw SyncError(
                .configuration, "no user name for this process's user id \(uid) in the password database"
                    + (failure != 0 ? " (\(String(cString: strerror(failure))))" : ""),
                field: "\(origin): user", value: "", expected: "user=NAME in the connection string")
        }
        return String(cString: name)
    }

    private static func keywordPairs(_ text: String, origin: String) throws(SyncError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var characters = Array(text)[...]
        func skipSpaces() { while let first = characters.first, first.isWhitespace { characters.removeFirst() } }
        skipSpaces()
        while !characters.isEmpty {
            var key = ""
            while let first = characters.first, first != "=", !first.isWhitespace { key.append(characters.removeFirst()) }
            skipSpaces()
            guard characters.first == "=" else {
                throw SyncError(
                    .configuration, "a parameter without a value",
                    field: "\(origin): \(parameter(key, position: pairs.count + 1, unknownByKey: false))",
                    expected: "key=value pairs separated by spaces")
            }
            characters.removeFirst()
            skipSpaces()
            var value = ""
            if characters.first == "'" {
                characters.removeFirst()
                var closed = false
                while let next = characters.popFirst() {
                    if next == "\\", let escaped = characters.popFirst() { value.append(escaped); continue }
                    if next == "'" { closed = true; break }
                    value.append(next)
                }
                guard closed else {
                    throw SyncError(
                        .configuration, "an unterminated quoted value",
                        field: "\(origin): \(parameter(key, position: pairs.count + 1, unknownByKey: true))", expected: "a closing quote")
                }
            } else {
                while let first = characters.first, !first.isWhitespace {
                    characters.removeFirst()
                    if first == "\\", let escaped = characters.popFirst() { value.append(escaped) } else { value.append(first) }
                }
            }
            pairs.append((key, value))
            skipSpaces()
        }
        return pairs
    }

    private static func urlPairs(_ text: String, origin: String) throws(SyncError) -> [(String, String)] {
        guard let components = URLComponents(string: text) else {
            throw SyncError(.configuration, "not a URL", field: origin, value: "postgresql://…", expected: "postgresql://user:password@host:port/database?sslmode=…")
        }
        var pairs: [(String, String)] = []
        if let host = components.percentEncodedHost, !host.isEmpty { pairs.append(("host", host.removingPercentEncoding ?? host)) }
        if let port = components.port { pairs.append(("port", String(port))) }
        if let user = components.user { pairs.append(("user", user)) }
        if let password = components.password { pairs.append(("password", password)) }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        if !path.isEmpty { pairs.append(("dbname", path)) }
        for item in components.queryItems ?? [] {
            pairs.append((item.name, item.value ?? ""))
        }
        return pairs
    }

    /// The same settings with the password hidden, for logs and status.
    package var redacted: String {
        var parts: [String] = []
        if let socketDirectory { parts.append("host=\(socketDirectory)") } else if let host { parts.append("host=\(host)") }
        parts.append("port=\(port)")
        parts.append("user=\(user)")
        if let database { parts.append("dbname=\(database)") }
        parts.append("sslmode=\(tlsMode.rawValue)")
        return parts.joined(separator: " ")
    }

    /// PostgresNIO's configuration for these settings.
    ///
    /// `verify-full` checks the chain against ``rootCertificate`` and the host name;
    /// `verify-ca` the chain only; `require` and `prefer` check nothing (as libpq's).
    package func postgresConfiguration() throws(SyncError) -> PostgresConnection.Configuration {
        if let socketDirectory {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch tlsMode {
            case .disable:
                tls = .disable
            case .prefer, .require:
                var configuration = TLSConfiguration.makeClientConfiguration()
                configuration.certificateVerification = .none
                let context = try NIOSSLContext(configuration: configuration)
                tls = tlsMode == .prefer ? .prefer(context) : .require(context)
            case .verifyCA, .verifyFull:
                var configuration = TLSConfiguration.makeClientConfiguration()
                configuration.trustRoots = .file(rootCertificate ?? "")
                configuration.certificateVerification = tlsMode == .verifyFull ? .fullVerification : .noHostnameVerification
                tls = .require(try NIOSSLContext(configuration: configuration))
            }
        } catch {
            throw SyncError(.configuration, "cannot set up TLS: \(error)", field: "sslrootcert", value: rootCertificate ?? "", expected: "a readable PEM file of certificate authorities")
        }
        // PostgresNIO names the host in SNI and checks the certificate against it (an IP address
        // against the address connected to), as libpq's verify-full.
        return PostgresConnection.Configuration(
            host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: tls)
    }
}
