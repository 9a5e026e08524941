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
case "run":
    var report = BenchReport()
    EngineBench.run(settings: settings, report: &report)
    try ClientBench.run(settings: settings, report: &report)
    report.print()
default:
    FileHandle.standardError.write(Data("usage: buzzkit-bench run | declare-queue NAME | delete-queue NAME\n".utf8))
    exit(2)
}
