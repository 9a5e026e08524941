import BuzzEngineCLI
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
      api                       serve the HTTP API
      dev                       api + every worker + scheduler in one process (local use)
      worker [--queues LIST]    consume work queues (trigger, trigger-bulk, plan-dispatch, plan-dispatch-bulk,
                                ack-ingest, fallback-check; default all)
      scheduler                 publish due timers and outbox messages; remove what is past its retention
      tenant create NAME [--json]  create a tenant and print its keys
      tenant keys list|create|revoke TENANT …   list, add (secret|publishable) or revoke API keys
      tenant signing-secret rotate TENANT [--grace-hours 24]   new signing secret; the old one verifies tokens meanwhile
      runs list TENANT [--subscriber ID] [--workflow KEY] [--status S] [--limit N] [--cursor C]
                                a tenant's runs, newest first
      subscriber show|delete TENANT ID   a subscriber and its devices; erasure (cancels its runs on its phones)
      workflow list TENANT | workflow retire TENANT KEY   current workflows; retire one (no new runs, live ones go on)
      dlq list|replay QUEUE [--limit N]  dead letters with their reasons; send them back after a fix (ids kept)
      moment --time HH:MM[:SS] --timezone ZONE --from INSTANT [--quiet-hours HH:MM-HH:MM] [--policy shift|ignore]
                                print the local-window moment as {"moment", "fireAt", "shiftedByQuietHours"}
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
        let runner = MigrationRunner(pool: pool, schema: configuration.databaseSchema)
        let applied = try runner.migrate(Migration.bundled())
        print(applied.isEmpty ? "migrate: nothing to apply" : "migrate: applied \(applied.map(String.init).joined(separator: ", "))")
        if let collation = try? runner.collation(), !MigrationRunner.comparesBytes(collation) {
            print("migrate: note: this database compares text under LC_COLLATE \(collation); one created with LC_COLLATE C "
                  + "spends less CPU on every key (README, Operations: PostgreSQL settings)")
        }
    } catch {
        fail("\(error)")
    }
case "runs", "subscriber", "workflow", "dlq":
    do {
        try Commands.operations(command, try Configuration(environment: environment), arguments: Array(arguments.dropFirst()))
    } catch {
        fail("\(error)")
    }
case "worker", "scheduler", "tenant", "api", "dev":
    SignalWaiter.blockTerminationSignals()
    do {
        let configuration = try Configuration(environment: environment)
        switch command {
        case "worker": try Commands.worker(configuration, arguments: Array(arguments.dropFirst()))
        case "scheduler": try Commands.scheduler(configuration)
        case "api": try Commands.api(configuration)
        case "dev": try Commands.dev(configuration)
        default: try Commands.tenant(configuration, arguments: Array(arguments.dropFirst()))
        }
    } catch {
        fail("\(error)")
    }
case "moment":
    let result = MomentCommand.run(Array(arguments.dropFirst()))
    if result.exitCode == 0 {
        print(result.output)
    } else {
        FileHandle.standardError.write(Data((result.output + "\n").utf8))
    }
    exit(result.exitCode)
case "help", "--help", "-h":
    print(usage)
default:
    fail("unknown command \"\(command)\"\n\(usage)", code: 2)
}
