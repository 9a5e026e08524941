import Foundation

/// Threads for the API's blocking work, run from its async handlers: libpq calls
/// (authentication, storage) and the group commit of devices' words, whose callers wait on one
/// another by design (``DeviceWordBatcher``).
///
/// Not a concurrent `DispatchQueue`: that targets the global pool, which on Linux keeps about
/// one thread a core and adds more only slowly while they block. Handlers waiting on
/// PostgreSQL then queued for one of two threads: under sustained windows a phone's
/// acknowledgment waited seconds for a thread rather than for PostgreSQL (2.7 s on average at
/// 2,000 windows a second, so half the acknowledgments came after their moment), and a group
/// commit gathered only the few requests that had a thread. Here a job starts at once, on an
/// idle thread or a new one, up to ``maxThreads``; work past that waits in order. A thread idle
/// for ``idleSeconds`` ends, so a quiet server keeps none.
final class BlockingPool: @unchecked Sendable {
    /// The API's pool. 64 threads: PostgreSQL work beyond the connection pool
    /// (`BUZZKIT_DB_POOL_SIZE`) waits for a connection there, while a group commit's followers
    /// wait holding none.
    static let shared = BlockingPool(maxThreads: 64, name: "buzzkit.api.blocking")

    /// Threads at most; jobs past them wait in submission order.
    let maxThreads: Int
    /// How long a thread with nothing to do stays.
    let idleSeconds: TimeInterval
    private let name: String
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0

    init(maxThreads: Int, idleSeconds: TimeInterval = 10, name: String) {
        self.maxThreads = max(1, maxThreads)
        self.idleSeconds = idleSeconds
        self.name = name
    }

    /// Threads alive now (busy or idle).
    var threadCount: Int { condition.withLock { threads } }

    /// Runs `body` on one of the pool's threads and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Queues `job`; starts a thread when the jobs waiting outnumber the idle threads.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let start = jobs.count - head > idle && threads < maxThreads
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        guard start else { return }
        let thread = Thread { [self] in work() }
        thread.name = name
        thread.start()
    }

    private func work() {
        condition.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                // Taken jobs leave the array once it empties, or in chunks while work keeps
                // coming faster than it drains, so nothing done stays referenced.
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: jobs.capacity <= 1024)
                    head = 0
                } else if head >= 1024 {
                    jobs.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let woken = condition.wait(until: Date().addingTimeInterval(idleSeconds))
            idle -= 1
            if !woken && head == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
