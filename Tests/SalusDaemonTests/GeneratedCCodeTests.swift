import Foundation
import Testing

@Suite("The generated C code")
struct GeneratedCCodeTests {
    @Test("every protoc-c file compiles as C11 against libprotobuf-c")
    func compiles() async throws {
        let root = DaemonHarness.packageRoot.appendingPathComponent("Protos/generated-c")
        let files = FileManager.default.enumerator(atPath: root.path)!
            .compactMap { $0 as? String }
            .filter { $0.hasSuffix(".pb-c.c") }
            .sorted()
        #expect(files.count >= 9, "expected the C code of every proto, found \(files)")
        let cc = try #require(DaemonHarness.findExecutable("cc"), "no C compiler")
        for file in files {
            let result = try await DaemonHarness.run(cc, ["-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I", root.path, root.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(file) does not compile:\n\(result.output)")
        }
    }
}
