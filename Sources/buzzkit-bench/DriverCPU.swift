import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The CPU the bench's own driver spends inside this process (offering events, playing the
/// devices, its publisher's thread), so a phase's product CPU can be printed apart from it:
/// the worker figure is this process's CPU minus the driver's.
///
/// The driver's loops add their own thread's CPU (``measure(_:)``); its publisher runs on a
/// thread named ``publisherThread``, read from `/proc/self/task/*/stat`.
final class DriverCPU: @unchecked Sendable {
    /// The name the driver's publisher thread carries (at most 15 bytes, Linux's limit).
    static let publisherThread = "bench-drv-amqp"

    private let lock = NSLock()
    private var loops: Double = 0
    private let publisherAtStart: Double

    init() { publisherAtStart = Self.namedThreads(Self.publisherThread) }

    /// Runs `body` and adds the CPU the calling thread spent in it.
    func measure<T>(_ body: () throws -> T) rethrows -> T {
        let before = Self.threadSeconds()
        defer {
            let spent = Self.threadSeconds() - before
            lock.withLock { loops += spent }
        }
        return try body()
    }

    /// CPU seconds the driver used since this was made.
    var seconds: Double {
        lock.withLock { loops } + Self.namedThreads(Self.publisherThread) - publisherAtStart
    }

    /// The calling thread's CPU seconds so far.
    static func threadSeconds() -> Double {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return 0 }
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// CPU seconds (user + system) of this process's threads named `name`.
    static func namedThreads(_ name: String) -> Double {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        return tasks.compactMap { ProcessCPU.stat("/proc/self/task/\($0)/stat") }.filter { $0.comm == name }.map(\.seconds).reduce(0, +)
    }
}
