import APNsStandIn
import Foundation
import PushDelivery
#if canImport(Glibc)
import Glibc
#endif

/// One bench run: a stand-in, a provider with at most `connections` connections, a warm-up,
/// then `pushes` silent pushes from `workers` threads in batches.
struct BenchRun {
    let options: BenchOptions

    func run() throws -> String {
        let directory = NSTemporaryDirectory() + "apns-bench-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credentials = try StandInCredentials.generate()
        let files = try credentials.write(to: directory)
        let key = try ProviderKeyPair.generate(keyID: "BENCHKEY01", teamID: "BENCHTEAM1")
        try key.write(to: directory)
        let server = try StandInProcess(directory: directory, credentials: credentials, key: key,
                                        inProcess: options.inProcess)

        var configuration = APNsConfiguration(keyID: key.keyID, teamID: key.teamID, privateKeyPEM: key.privateKeyPEM,
                                              baseURL: server.baseURL, extraCAFile: files.caCertificate)
        configuration.maxConnections = options.connections
        let provider = try APNsProvider(configuration: configuration)
        let payload = Self.planPayload()

        _ = send(provider, count: options.warmup, payload: payload, offset: 0)
        let before = provider.statistics
        var usageBefore = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageBefore)
        let started = ContinuousClock.now
        let delivered = send(provider, count: options.pushes, payload: payload, offset: options.warmup)
        let elapsed = ContinuousClock.now - started
        var usageAfter = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageAfter)
        let after = provider.statistics
        provider.close()
        let (summary, serverCPU) = server.stop()

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let processCPU = StandInProcess.seconds(usageAfter) - StandInProcess.seconds(usageBefore)
        let loopCPU = after.loopCPUSeconds - before.loopCPUSeconds
        let pushes = Double(options.pushes)
        func micros(_ cpu: Double) -> String { String(format: "%.1f µs", cpu / pushes * 1e6) }
        var lines = [
            "apns-bench: \(options.pushes) silent pushes (\(payload.count) B), \(options.workers) workers × "
                + "batches of \(options.batch), ≤ \(options.connections) connections, stand-in "
                + (options.inProcess ? "in this process" : "in a child process"),
            String(format: "  throughput:            %.0f pushes/s (%.2f s)", pushes / seconds, seconds),
            "  delivered:             \(delivered)/\(options.pushes)",
            "  provider CPU per push: \(micros(processCPU)) (bench process, getrusage RUSAGE_SELF)"
                + (options.inProcess ? " [includes the in-process stand-in]" : ""),
            "  libcurl thread only:   \(micros(loopCPU)) (CLOCK_THREAD_CPUTIME_ID)",
            "  connections opened:    \(after.connectionsOpened) (provider, warm-up included); "
                + "retries \(after.retries - before.retries)",
            "  stand-in:              \(summary)",
        ]
        if let serverCPU {
            lines.append("  stand-in CPU per push: \(micros(serverCPU * pushes / Double(options.pushes + options.warmup))) "
                         + "(RUSAGE_CHILDREN, warm-up prorated)")
        }
        return lines.joined(separator: "\n")
    }

    /// Sends `count` pushes from the worker threads; returns how many were delivered.
    private func send(_ provider: APNsProvider, count: Int, payload: Data, offset: Int) -> Int {
        let delivered = Tally()
        let batchCount = (count + options.batch - 1) / options.batch
        let next = Tally()
        let workers = options.workers
        let batchSize = options.batch
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.increment() - 1
                guard index < batchCount else { return }
                let start = index * batchSize
                let batch = (start..<min(count, start + batchSize)).map { number in
                    PushNotification.background(deviceToken: String(format: "%064x", offset + number),
                                                topic: "com.buzzkit.bench", environment: .production,
                                                expiration: Date(timeIntervalSince1970: 1_800_000_000), payload: payload)
                }
                delivered.add(provider.send(batch).filter(\.isDelivered).count)
            }
        }
        return delivered.value
    }

    /// A silent plan body shaped as docs/contract.md §4.
    static func planPayload() -> Data {
        Data("""
        {"aps":{"content-available":1},"bk.local":{"id":"run_0123456789/nudge","messageId":"\(UUID().uuidString)",\
        "fireAt":{"year":2026,"month":12,"day":1,"hour":7,"minute":0,"second":0},"title":"Leg day",\
        "body":"6:00 with Maya.","deepLink":"gym://workouts/legs","data":{},"cancelOn":["workout.completed"]}}
        """.utf8)
    }

    /// A locked counter shared by the worker threads.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        @discardableResult
        func increment() -> Int { lock.withLock { count += 1; return count } }
        func add(_ amount: Int) { lock.withLock { count += amount } }
        var value: Int { lock.withLock { count } }
    }
}
