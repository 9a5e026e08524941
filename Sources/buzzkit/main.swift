import BuzzServer
import Foundation
import PostgresClient

// The only place that reads the environment.
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("buzzkit: \(message)\n".utf8))
    exit(code)
}

let usage = """
    usage: buzzkit <command> [options]

    commands:
      migrate [--schema NAME]   apply pending database migrations (safe to run concurrently)
      help                      this text

    configuration comes from BUZZKIT_* environment variables (see README.md)
    """

guard let command = arguments.first else { fail(usage, code: 2) }
switch command {
case "migrate":
    do {
        var configuration = try Configuration(environment: environment)
        if let index = arguments.firstIndex(of: "--schema"), index + 1 < arguments.count {
            configuration.databaseSchema = arguments[index + 1]
            try configuration.validate()
        }
        let pool = PostgresPool(url: configuration.databaseURL, maxConnections: 1)
        defer { pool.close() }
        let applied = try MigrationRunner(pool: pool, schema: configuration.databaseSchema).migrate(Migration.bundled())
        print(applied.isEmpty ? "migrate: nothing to apply" : "migrate: applied \(applied.map(String.init).joined(separator: ", "))")
    } catch {
        fail("\(error)")
    }
case "help", "--help", "-h":
    print(usage)
default:
    fail("unknown command \"\(command)\"\n\(usage)", code: 2)
}
