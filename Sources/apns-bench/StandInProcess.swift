import APNsStandIn
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The stand-in for the bench: `buzzkit-apns serve` as a child process (so the bench's own CPU
/// time is the provider's), or in this process with `--in-process`.
final class StandInProcess {
    let baseURL: String
    private let child: Process?
    private let output: Pipe?
    private let embedded: APNsStandIn?

    /// Starts the stand-in with the files in `directory` (from `buzzkit-apns setup`'s layout).
    init(directory: String, credentials: StandInCredentials, key: ProviderKeyPair, inProcess: Bool) throws {
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("buzzkit-apns").path
        guard inProcess || FileManager.default.isExecutableFile(atPath: sibling) else {
            throw BenchOptions.Failure("\(sibling) not found: build it (swift build -c release) or pass --in-process")
        }
        if inProcess {
            var configuration = APNsStandInConfiguration(credentials: credentials, providerKeys: [key])
            configuration.recordPushes = false
            let standIn = try APNsStandIn(configuration: configuration)
            try standIn.start()
            embedded = standIn
            baseURL = standIn.baseURL
            child = nil
            output = nil
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sibling)
        process.arguments = ["serve", "--dir", directory, "--port", "0", "--no-record"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // The first line is "buzzkit-apns listening on https://127.0.0.1:PORT".
        var text = ""
        while !text.contains("\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: "https://") else {
            process.terminate()
            throw BenchOptions.Failure("buzzkit-apns did not start: \(text)")
        }
        baseURL = String(text[range.lowerBound...].prefix { !$0.isWhitespace })
        child = process
        output = pipe
        embedded = nil
    }

    /// Stops the stand-in. Returns its closing counters and CPU seconds (child process only).
    func stop() -> (summary: String, cpuSeconds: Double?) {
        if let embedded {
            embedded.stop()
            return (embedded.statistics.summary, nil)
        }
        guard let child, let output else { return ("", nil) }
        child.terminate()
        child.waitUntilExit()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let summary = rest.split(separator: "\n").last { $0.contains("stopped:") }.map(String.init) ?? rest
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return (summary, Self.seconds(usage))
    }

    /// User plus system time of a rusage.
    static func seconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
