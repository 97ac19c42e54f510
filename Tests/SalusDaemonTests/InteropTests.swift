import Foundation
import Testing

/// Clients in other languages against a real `salusd`: the stock containerd ttrpc client in Go
/// (Examples/go-ttrpc-client) and the libprotobuf-c client (Examples/c-client). Each is built
/// into a temporary folder, never into the source tree, and its output is checked.
@Suite("Interoperability with other languages", .serialized)
struct InteropTests {
    static let examples = DaemonHarness.packageRoot.appendingPathComponent("Examples", isDirectory: true)

    /// The Go toolchain (Debian's golang-go), or nil when it is not installed.
    static let go = DaemonHarness.findExecutable("go")

    /// Builds Examples/c-client into `folder` with its Makefile; returns the binary.
    static func buildCClient(into folder: URL) async throws -> URL {
        let make = try #require(DaemonHarness.findExecutable("make"), "make is not installed")
        let build = try await DaemonHarness.run(
            make,
            ["-C", examples.appendingPathComponent("c-client").path, "BUILD_DIR=\(folder.path)"]
        )
        try #require(build.status == 0, "building the C client failed:\n\(build.output)")
        return folder.appendingPathComponent("salus-c-client")
    }

    @Test("the C client prints the server, its features and every service with its methods")
    func cClientHello() async throws {
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-c-client")
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = try await Self.buildCClient(into: folder)

        let daemon = try await DaemonHarness.start()
        let result = try await DaemonHarness.run(client, [daemon.socketPath], timeout: .seconds(30))
        #expect(result.status == 0, "salus-c-client failed:\n\(result.output)\ndaemon:\n\(daemon.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("server: salusd ") }, "\(result.output)")
        #expect(lines.contains("protocol version: 1"), "\(result.output)")
        let features = lines.first { $0.hasPrefix("features:") }?.split(separator: " ").dropFirst().map(String.init)
        #expect(Set(features ?? []).isSuperset(of: ["cancel", "window_update", "go_away"]), "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("limits: max_frame_size=4194304 max_metadata_size=8192 ") })
        #expect(lines.contains("  salus.v1.Session"), "\(result.output)")
        #expect(lines.contains("    Hello (unary)"), "\(result.output)")
        #expect(lines.contains("  salus.v1.Diagnostics"), "\(result.output)")
        for method in [
            "Echo (unary)", "Generate (server streaming)", "Collect (client streaming)",
            "EchoStream (bidirectional streaming)", "Sleep (unary)",
        ] {
            #expect(lines.contains("    " + method), "\(method) missing from:\n\(result.output)")
        }
        #expect(try await daemon.stop() == 0, "salusd did not exit cleanly on SIGTERM:\n\(daemon.output)")
    }

    @Test("the C client reports a socket it cannot reach, with a non-zero exit")
    func cClientConnectionRefused() async throws {
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-c-client")
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = try await Self.buildCClient(into: folder)
        let missing = folder.appendingPathComponent("nobody-listens.sock").path
        let result = try await DaemonHarness.run(client, [missing], timeout: .seconds(30))
        #expect(result.status != 0)
        #expect(result.output.contains("cannot connect to \(missing)"), "\(result.output)")
    }

    // Skipped, with this reason in the test report, only where the Go toolchain is missing: the
    // program builds offline against Debian's ttrpc in GOPATH mode and needs nothing else.
    @Test(
        "the stock ttrpc Go client calls Echo and Hello and sees UNIMPLEMENTED for an unknown method",
        .enabled(if: InteropTests.go != nil, "go is not installed (Debian: golang-go, golang-github-containerd-ttrpc-dev)")
    )
    func goTTRPCClient() async throws {
        let go = try #require(Self.go)
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-go-client")
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = folder.appendingPathComponent("go-ttrpc-client")
        let build = try await DaemonHarness.run(
            go,
            ["build", "-o", client.path, "."],
            in: Self.examples.appendingPathComponent("go-ttrpc-client"),
            environment: [
                "GOPATH": "/usr/share/gocode",
                "GO111MODULE": "off",
                "GOFLAGS": "",
                "GOCACHE": folder.appendingPathComponent("gocache").path,
                "CGO_ENABLED": "0",
            ]
        )
        try #require(build.status == 0, "building the Go client failed:\n\(build.output)")

        let daemon = try await DaemonHarness.start()
        let text = "interop check: héllo ✓"
        let result = try await DaemonHarness.run(
            client, ["-socket", daemon.socketPath, "-text", text], timeout: .seconds(30)
        )
        #expect(result.status == 0, "go-ttrpc-client failed:\n\(result.output)\ndaemon:\n\(daemon.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("echo: \"\(text)\""), "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("unknown method: code=12 (Unimplemented)") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("hello: salusd ") && $0.contains("protocol 1") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("service salus.v1.Session: ") && $0.contains("Hello") })
        #expect(lines.contains { $0.hasPrefix("service salus.v1.Diagnostics: ") && $0.contains("Echo") })
        #expect(lines.last == "ok", "\(result.output)")
        #expect(try await daemon.stop() == 0, "salusd did not exit cleanly on SIGTERM:\n\(daemon.output)")
    }
}
