import AMQPClient
import BuzzServer
import Foundation

// `buzzkit-bench run` prints BuzzKit's figures beside the raw ceilings that scripts/bench.sh
// measured in the same run and passed in RAW_* variables.
let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
let settings = BenchSettings(environment: environment)

switch arguments.first {
case "declare-queue" where arguments.count == 2:
    try ClientBench.declareQueue(arguments[1], settings: settings)
case "delete-queue" where arguments.count == 2:
    try ClientBench.deleteQueue(arguments[1], settings: settings)
case "delete-topology" where arguments.count == 2:
    let connection = try AMQPConnection(url: AMQPURL(settings.amqpURL))
    try Topology(prefix: arguments[1]).delete(on: connection)
    connection.close()
case "hello-server" where arguments.count == 2:
    try HelloServer.serve(port: Int(arguments[1]) ?? 18090)
case "run":
    var report = BenchReport()
    let only = arguments.count > 1 ? Set(arguments[1...]) : ["engine", "clients", "pipeline", "fairness", "timers"]
    if only.contains("engine") { EngineBench.run(settings: settings, report: &report) }
    if only.contains("clients") { try ClientBench.run(settings: settings, report: &report) }
    if only.contains("pipeline") { try PipelineBench.run(settings: settings, report: &report) }
    if only.contains("fairness") { try FairnessBench.run(settings: settings, report: &report) }
    if only.contains("timers") { try TimerBench.run(settings: settings, report: &report) }
    APIFigures.add(from: environment, to: &report)
    report.print()
    // `make bench` keeps the table as docs/performance.md.
    if let path = environment["BENCH_MARKDOWN"], !path.isEmpty {
        try report.markdown().write(toFile: path, atomically: true, encoding: .utf8)
    }
default:
    FileHandle.standardError.write(Data("usage: buzzkit-bench run [engine] [clients] [pipeline] [fairness] [timers] | declare-queue NAME | delete-queue NAME\n".utf8))
    exit(2)
}
