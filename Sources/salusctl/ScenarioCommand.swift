import ArgumentParser
import Foundation
import SalusAdmin

/// `salusctl scenario run FILE`: registers the scenario's apps with their policies, runs its
/// steps as those apps (through their launcher sockets) and prints pass or fail per step
/// (``AdminClient/run(_:connect:stepDone:)``).
struct Scenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run authorization scenarios against a daemon.",
        subcommands: [Run.self]
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a scenario file (JSON) and print pass/fail per step.",
            discussion: "See Examples/scenarios/ and docs/authorization.md. Exits 1 when a step fails.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The scenario file.", valueName: "file")) var file: String

        func run() async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("FILE: cannot read \(file): \(error.localizedDescription)")
            }
            let scenario: AuthorizationScenario
            do {
                scenario = try JSONDecoder().decode(AuthorizationScenario.self, from: data)
            } catch {
                throw CommandFailure("FILE: \(file) is not a scenario: \(error)")
            }
            let results = try await connection.withAdmin { owner in
                print("scenario: \(scenario.name)")
                return try await owner.run(scenario, stepDone: { print($0.line) })
            }
            let failures = results.filter { !$0.passed }.count
            print(failures == 0 ? "PASS: all \(scenario.steps.count) steps" : "FAIL: \(failures) of \(scenario.steps.count) steps")
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
