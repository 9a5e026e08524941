import Foundation

/// Where a phase's CPU goes: `perf record` samples the worker (this process), PostgreSQL and
/// RabbitMQ while the phase runs, and ``finish(_:into:)`` adds each group's hottest symbols
/// (Swift names demangled) to the report's notes. Without `perf` on the PATH, or with
/// `BENCH_PROFILE=0`, it records nothing and says so.
final class PhaseProfile {
    private let process: Process?
    private let path: String
    private let pids: (worker: Int32, postgres: [Int32], rabbitmq: [Int32])

    /// Starts sampling every CPU at 199 Hz (a few percent of one core at most).
    init(_ name: String) {
        let me = ProcessInfo.processInfo.processIdentifier
        let services = ProcessCPU.servicePids()
        let comm = { (pid: Int32) in (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) }
        pids = (me, services.filter { comm($0) == "postgres" }, services.filter { comm($0) == "beam.smp" })
        path = NSTemporaryDirectory() + "buzzkit-profile-\(name)-\(me).data"
        guard ProcessInfo.processInfo.environment["BENCH_PROFILE"] != "0", let perf = Self.which("perf") else {
            process = nil
            return
        }
        let recorder = Process()
        // Every CPU rather than the processes (`-p`): per-process events are switched in and out
        // at each of a PostgreSQL backend's many context switches, which added more CPU to what
        // it measures than the phase itself spent. Under `timeout`: a bench that dies mid-phase
        // leaves no profiler running.
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        recorder.arguments = ["-s", "INT", "900", perf, "record", "-q", "-a", "-F", "199", "-o", path]
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = FileHandle.nullDevice
        do {
            try recorder.run()
            process = recorder
            Thread.sleep(forTimeInterval: 0.3)  // perf attaches before the phase begins
        } catch {
            process = nil
        }
    }

    /// Stops sampling and adds the top `top` symbols of each process group to `report`.
    func finish(_ what: String, top: Int = 8, into report: inout BenchReport) {
        guard let process else {
            report.notes.append("\(what): no profile (perf not installed, or BENCH_PROFILE=0)")
            return
        }
        process.interrupt()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: path) }
        report.notes.append("\(what): where the CPU goes (perf, share of each process's samples)")
        for (group, ids) in [("worker", [pids.worker]), ("PostgreSQL", pids.postgres), ("RabbitMQ", pids.rabbitmq)] where !ids.isEmpty {
            let lines = Self.hottest(path: path, pids: ids, top: top)
            report.notes.append("  \(group):")
            report.notes.append(contentsOf: lines.map { "    " + $0 })
        }
    }

    /// `perf report` for `pids`: "share  library  symbol" lines, Swift symbols demangled.
    private static func hottest(path: String, pids: [Int32], top: Int) -> [String] {
        guard let perf = which("perf") else { return [] }
        let output = run(perf, ["report", "-i", path, "--stdio", "--no-children", "--percentage", "relative", "--sort", "dso,sym",
                                "--pid", pids.map(String.init).joined(separator: ","), "--percent-limit", "0.5"])
        var lines: [String] = []
        for line in output.split(separator: "\n") where !line.hasPrefix("#") && line.contains("%") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4 else { continue }
            // share, library, [.] or [k], symbol...
            let symbol = fields[3...].joined(separator: " ")
            lines.append("\(fields[0])  \(fields[1])  \(demangle(symbol))")
            if lines.count == top { break }
        }
        return lines
    }

    private static func demangle(_ symbol: String) -> String {
        guard symbol.hasPrefix("$s"), let swift = which("swift") else { return String(symbol.prefix(100)) }
        let name = run(swift, ["demangle", "--simplified", "--compact", symbol]).trimmingCharacters(in: .whitespacesAndNewlines)
        return String((name.isEmpty ? symbol : name).prefix(100))
    }

    private static func run(_ executable: String, _ arguments: [String]) -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        let pipe = Pipe()
        child.standardOutput = pipe
        child.standardError = FileHandle.nullDevice
        guard (try? child.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    private static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
