import APNsStandIn
import Foundation
import PushDelivery
#if canImport(Glibc)
import Glibc
#endif

// apns-bench: throughput and provider CPU per push against the APNs stand-in (see BenchOptions.help).
do {
    let options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    let report = try BenchRun(options: options).run()
    print(report)
} catch {
    FileHandle.standardError.write(Data("apns-bench: \(error)\n".utf8))
    exit(1)
}
