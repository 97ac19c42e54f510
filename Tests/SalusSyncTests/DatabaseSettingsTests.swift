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
        ("host=db port=99999", "port", "1 to 65535"),
        ("host=db sslmode=maybe", "sslmode", "verify-full"),
        ("host=db sslmode=verify-full", "sslrootcert", "verify-full"),
        ("host=db colour=blue", "colour", "application_name"),
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

    /// The name of the user this process runs as, from the password database.
    static var operatingSystemUser: String {
        guard let entry = getpwuid(geteuid()) else { return "" }
        return String(cString: entry.pointee.pw_name)
    }

    @Test("without user=, the user is the one this process runs as (getpwuid(geteuid())), as libpq's; never $USER or postgres")
    func defaultUser() throws {
        let name = Self.operatingSystemUser
        #expect(!name.isEmpty)
        #expect(try DatabaseSettings.parse("host=db dbname=care").user == name)
        #expect(try DatabaseSettings.parse("postgresql://db.clinic.example/care").user == name)
        #expect(try DatabaseSettings.parse("host=/run/postgresql").user == name)
        // The environment names no one: $USER and $LOGNAME are whatever the parent set.
        let environment = [DatabaseSettings.environmentVariable: "host=db", "USER": "mallory", "LOGNAME": "mallory"]
        #expect(try DatabaseSettings.load(file: nil, environment: environment).user == name)
        // Given, it is used as given.
        #expect(try DatabaseSettings.parse("host=db user=care_team").user == "care_team")
        #expect(try DatabaseSettings.parse("postgresql://anna@db/care").user == "anna")
    }

    @Test("a file first; else the environment; neither is an error naming both")
    func sources() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID()).conf")
        try "host=filehost user=a\n".write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o600)
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

/// The connection string's secrets stay out of errors, and the file that holds it must be private.
@Suite struct DatabaseSettingsSecrecyTests {
    @Test("no error echoes a connection-string value: a misspelt key, an unterminated quote, a word without '='", arguments: [
        ("host=db pasword=SECRET", "pasword"),
        ("host=db password='SECRET", "password"),
        ("host=db password=SECRET phrase", "parameter 3"),
        ("host=db password='SECRET' colour=SECRET", "colour"),
        ("postgresql://u:SECRET@db/care?pasword=SECRET", "pasword"),
        ("postgresql://u@db/care?application_name=x&sslmode=SECRET", "sslmode"),
    ])
    func noValueEchoed(text: String, field: String) {
        #expect {
            try DatabaseSettings.parse(text, origin: "test.conf")
        } throws: { error in
            let description = "\(error)"
            let hidden = !description.contains("SECRET") && !description.contains("phrase")
            if !hidden { Issue.record("the error shows a value: \(description)") }
            return hidden && description.contains("test.conf") && description.contains(field)
        }
    }

    /// A file holding `text` with `mode`, in a fresh folder.
    static func file(_ text: String, mode: mode_t, name: String = "sync.conf") throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: false, encoding: .utf8)
        chmod(file.path, mode)
        return (folder, file)
    }

    @Test("a connection-string file that group or others may read is refused naming the file, its mode and the fix; 0600 and 0400 are read")
    func fileMode() throws {
        for mode: mode_t in [0o644, 0o640, 0o604, 0o660] {
            let (folder, file) = try Self.file("host=filehost user=a password=SECRET", mode: mode)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect {
                try DatabaseSettings.load(file: file.path, environment: [:])
            } throws: { error in
                let description = "\(error)"
                return description.contains(file.path) && description.contains(String(mode, radix: 8)) && description.contains("chmod 600")
                    && !description.contains("SECRET")
            }
        }
        for mode: mode_t in [0o600, 0o400] {
            let (folder, file) = try Self.file("host=filehost user=a", mode: mode)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(try DatabaseSettings.load(file: file.path, environment: [:]).host == "filehost")
        }
    }

    @Test("a systemd credential (CREDENTIALS_DIRECTORY/salus-sync-database) is read before the environment variable; --database-file before both")
    func credentialsDirectory() throws {
        let (folder, credential) = try Self.file("host=credhost user=c", mode: 0o400, name: DatabaseSettings.credentialName)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["CREDENTIALS_DIRECTORY": folder.path, DatabaseSettings.environmentVariable: "host=envhost user=b"]
        #expect(try DatabaseSettings.load(file: nil, environment: environment).host == "credhost")
        let (other, file) = try Self.file("host=filehost user=a", mode: 0o600)
        defer { try? FileManager.default.removeItem(at: other) }
        #expect(try DatabaseSettings.load(file: file.path, environment: environment).host == "filehost")
        // A credentials directory without this credential: the environment variable, as before.
        let empty = ["CREDENTIALS_DIRECTORY": other.path, DatabaseSettings.environmentVariable: "host=envhost user=b"]
        #expect(try DatabaseSettings.load(file: nil, environment: empty).host == "envhost")
        chmod(credential.path, 0o644)
        #expect {
            try DatabaseSettings.load(file: nil, environment: environment)
        } throws: { error in
            "\(error)".contains(credential.path) && "\(error)".contains("644")
        }
        #expect {
            try DatabaseSettings.load(file: nil, environment: [:])
        } throws: { error in
            "\(error)".contains("CREDENTIALS_DIRECTORY") && "\(error)".contains("--database-file")
        }
    }
}
