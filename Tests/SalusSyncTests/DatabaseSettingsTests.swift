import Foundation
import SalusSync
import Testing

/// Connection strings as libpq spells them, and the errors that name what is wrong.
@Suite struct DatabaseSettingsTests {
    @Test("a URL: user, password, host, port, database, sslmode and sslrootcert")
    func url() throws {
        let settings = try DatabaseSettings.parse(
            "postgresql://care:s%40cret@db.clinic.example:6432/records?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(settings.host == "db.clinic.example" && settings.port == 6432)
        #expect(settings.user == "care" && settings.password == "s@cret")
        #expect(settings.database == "records")
        #expect(settings.tlsMode == .verifyFull && settings.rootCertificate == "/etc/ca.pem")
        #expect(!settings.redacted.contains("cret"))
    }

    @Test("key=value pairs, with quoting, and a socket folder as host")
    func keywords() throws {
        let settings = try DatabaseSettings.parse("host=/run/postgresql port=5433 user=anna dbname='care team' password='it\\'s'")
        #expect(settings.socketDirectory == "/run/postgresql" && settings.host == nil)
        #expect(settings.port == 5433 && settings.user == "anna")
        #expect(settings.database == "care team" && settings.password == "it's")
        let configuration = try settings.postgresConfiguration()
        #expect(configuration.unixSocketPath == "/run/postgresql/.s.PGSQL.5433")
    }

    @Test("errors name the parameter, the value and what was expected", arguments: [
        ("host=db port=99999", "port", "99999"),
        ("host=db sslmode=maybe", "sslmode", "maybe"),
        ("host=db sslmode=verify-full", "sslrootcert", "verify-full"),
        ("host=db colour=blue", "colour", "blue"),
        ("host=db dbname", "dbname", "key=value"),
    ])
    func errors(text: String, field: String, mentioned: String) {
        #expect {
            try DatabaseSettings.parse(text, origin: "test.conf")
        } throws: { error in
            let description = "\(error)"
            return description.contains("test.conf") && description.contains(field) && description.contains(mentioned)
        }
    }

    @Test("a file first; else the environment; neither is an error naming both")
    func sources() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID()).conf")
        try "host=filehost user=a\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = [DatabaseSettings.environmentVariable: "host=envhost user=b"]
        #expect(try DatabaseSettings.load(file: file.path, environment: environment).host == "filehost")
        #expect(try DatabaseSettings.load(file: nil, environment: environment).host == "envhost")
        #expect {
            try DatabaseSettings.load(file: nil, environment: [:])
        } throws: { error in
            "\(error)".contains(DatabaseSettings.environmentVariable) && "\(error)".contains("--database-file")
        }
    }
}
