import Foundation
import Logging
import PostgresNIO

/// Where the PostgreSQL server is and how to reach it, read from a connection string.
///
/// **Rule: the connection string comes from a file or the environment, never the command line.**
/// Why: a command line is visible to every user of the machine (`ps`, `/proc/PID/cmdline`), and
/// the string usually carries a password. `salus-sync` reads `--database-file PATH` or the
/// `SALUS_SYNC_DATABASE` variable and has no option that takes the string itself.
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
    /// The user name.
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

    /// The settings from `--database-file` when given, else from ``environmentVariable``.
    package static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SyncError) -> DatabaseSettings {
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw SyncError(.configuration, "cannot read the connection string", field: "--database-file", value: file, expected: "a readable file holding a PostgreSQL connection string")
            }
            return try parse(text.trimmingCharacters(in: .whitespacesAndNewlines), origin: file)
        }
        guard let text = environment[environmentVariable], !text.isEmpty else {
            throw SyncError(
                .configuration, "no connection string", field: environmentVariable, value: "",
                expected: "--database-file PATH or \(environmentVariable) set to a PostgreSQL connection string")
        }
        return try parse(text, origin: environmentVariable)
    }

    /// Parses a URL or key=value connection string; `origin` names where it came from in errors.
    package static func parse(_ text: String, origin: String = "connection string") throws(SyncError) -> DatabaseSettings {
        let pairs: [(String, String)]
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            pairs = try urlPairs(text, origin: origin)
        } else {
            pairs = try keywordPairs(text, origin: origin)
        }
        var settings = DatabaseSettings(user: ProcessInfo.processInfo.environment["USER"] ?? "postgres")
        for (key, value) in pairs {
            switch key {
            case "host":
                if value.hasPrefix("/") { settings.socketDirectory = value; settings.host = nil } else if !value.isEmpty { settings.host = value }
            case "port":
                guard let port = Int(value), (1...65535).contains(port) else {
                    throw SyncError(.configuration, "bad port", field: "\(origin): port", value: value, expected: "a number from 1 to 65535")
                }
                settings.port = port
            case "user": settings.user = value
            case "password": settings.password = value
            case "dbname": settings.database = value.isEmpty ? nil : value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw SyncError(
                        .configuration, "unknown sslmode", field: "\(origin): sslmode", value: value,
                        expected: TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                settings.tlsMode = mode
            case "sslrootcert": settings.rootCertificate = value
            case "connect_timeout", "application_name": break
            default:
                throw SyncError(
                    .configuration, "unknown connection parameter", field: "\(origin): \(key)", value: value,
                    expected: "host, port, user, password, dbname, sslmode, sslrootcert, connect_timeout or application_name")
            }
        }
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
                throw SyncError(.configuration, "a parameter without a value", field: origin, value: key, expected: "key=value pairs separated by spaces")
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
                    throw SyncError(.configuration, "an unterminated quoted value", field: "\(origin): \(key)", value: value, expected: "a closing quote")
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
