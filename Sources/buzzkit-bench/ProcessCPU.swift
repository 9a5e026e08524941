import Foundation

/// CPU time spent by the three processes a window passes through, read from `/proc`: the
/// worker (this process: the in-process workers and schedulers, plus the bench's own driver
/// and in-memory push provider), PostgreSQL (every `postgres` process: backends, WAL writer,
/// checkpointer, autovacuum) and RabbitMQ (`beam.smp`). ``sample()`` before and after a phase
/// gives the CPU each spent on it; divided by the windows, the CPU microseconds per window.
///
/// A service's processes that exit during a phase are counted too: a process's CPU moves,
/// when it exits, into its parent's count of reaped children (`cutime` and `cstime`), so a
/// service's total is its live processes' own time plus their reaped children's. (Summing the
/// live processes alone lost an autovacuum worker that started and ended inside a phase, and
/// subtracted the whole CPU of one that was running at the start and ended inside it: the
/// PostgreSQL figure of the same run moved between 275 and 467 µs a window.)
struct ProcessCPU {
    /// CPU seconds (user + system) per process group.
    var worker: Double
    var postgres: Double
    var rabbitmq: Double

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The CPU each group has used so far: for PostgreSQL and RabbitMQ, their exited processes'
    /// too (their parents' reaped children); for this process, its own threads' alone (the
    /// profiler and tools it runs are not the product).
    static func sample() -> ProcessCPU {
        var cpu = ProcessCPU(worker: 0, postgres: 0, rabbitmq: 0)
        let me = ProcessInfo.processInfo.processIdentifier
        for (pid, comm, seconds, reaped) in processes() {
            if pid == me { cpu.worker += seconds } else if comm == "postgres" { cpu.postgres += seconds + reaped } else if comm == "beam.smp" { cpu.rabbitmq += seconds + reaped }
        }
        return cpu
    }

    /// The pids of PostgreSQL and RabbitMQ (for a profiler).
    static func servicePids() -> [Int32] {
        processes().filter { $0.comm == "postgres" || $0.comm == "beam.smp" }.map(\.pid)
    }

    static func - (after: ProcessCPU, before: ProcessCPU) -> ProcessCPU {
        ProcessCPU(worker: after.worker - before.worker, postgres: after.postgres - before.postgres,
                   rabbitmq: after.rabbitmq - before.rabbitmq)
    }

    /// Adds "CPU µs per window" rows for `what` to `report`. With `driver` (the CPU seconds
    /// the bench's own driver spent in this process, ``DriverCPU``), the worker row is the
    /// product's alone, and the product's sum and the driver's share are printed beside it.
    /// The product's CPU seconds: the three groups, less the bench driver's `driver` seconds.
    func product(driver: Double) -> Double { worker - driver + postgres + rabbitmq }

    func report(_ what: String, windows: Int, driver: Double? = nil, into report: inout BenchReport) {
        guard windows > 0 else { return }
        let per = { (seconds: Double) in seconds * 1e6 / Double(windows) }
        let workers = worker - (driver ?? 0)
        report.add("\(what): CPU per window, worker\(driver == nil ? "" : " (bench driver apart)")", per(workers), unit: "µs")
        report.add("\(what): CPU per window, PostgreSQL", per(postgres), unit: "µs")
        report.add("\(what): CPU per window, RabbitMQ", per(rabbitmq), unit: "µs")
        if let driver {
            report.add("\(what): product CPU per window (workers, scheduler, PostgreSQL, RabbitMQ)", per(product(driver: driver)), unit: "µs")
            report.add("\(what):   the bench's driver beside it (events offered, devices played)", per(driver), unit: "µs")
        }
    }

    /// (pid, command name, CPU seconds, reaped children's CPU seconds) of every process `/proc` shows.
    private static func processes() -> [(pid: Int32, comm: String, seconds: Double, reaped: Double)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var result: [(Int32, String, Double, Double)] = []
        for entry in entries {
            guard let pid = Int32(entry), let (comm, seconds, reaped) = stat("/proc/\(entry)/stat") else { continue }
            result.append((pid, comm, seconds, reaped))
        }
        return result
    }

    /// The command name, CPU seconds (user + system) and reaped children's CPU seconds
    /// (`cutime` + `cstime`) in a `/proc/…/stat` file (a process's or a thread's), nil when it
    /// cannot be read.
    static func stat(_ path: String) -> (comm: String, seconds: Double, reaped: Double)? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        // After the command: state is field 3; utime, stime, cutime and cstime are fields 14-17.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 14, let user = Double(fields[11]), let system = Double(fields[12]),
              let childUser = Double(fields[13]), let childSystem = Double(fields[14]) else { return nil }
        return (String(stat[stat.index(after: open)..<close]), (user + system) / ticksPerSecond, (childUser + childSystem) / ticksPerSecond)
    }
}
