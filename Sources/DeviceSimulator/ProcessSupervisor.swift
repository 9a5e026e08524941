import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs BuzzKit's server processes the way an orchestrator would: starts them from one binary
/// with a shared environment, restarts any that dies (after `restartDelay`), and lets a fault
/// drill SIGKILL, pause and resume them. Every exit is recorded.
public final class ProcessSupervisor: @unchecked Sendable {
    /// One exit of a supervised process.
    public struct Exit: Sendable {
        public var name: String
        public var at: Date
        /// The exit status, or the signal that ended it (as `-signal`).
        public var status: Int32
        /// Whether the drill caused it (a SIGKILL it sent).
        public var expected: Bool
    }

    let binary: String
    let environment: [String: String]
    let logDirectory: String
    /// How long a dead process stays down before it is started again.
    public var restartDelay: Double = 1

    private let lock = NSLock()
    private var running: [String: (pid: pid_t, arguments: [String])] = [:]
    private var order: [String] = []
    private var killed: Set<String> = []
    private var stopping = false
    private var exitLog: [Exit] = []
    private var starts: [String: Date] = [:]
    private var monitor: Thread?

    public init(binary: String, environment: [String: String], logDirectory: String) {
        self.binary = binary
        self.environment = environment
        self.logDirectory = logDirectory
    }

    /// Starts `buzzkit ARGS` under `name` (its standard error goes to `<name>.log`).
    public func start(_ name: String, _ arguments: [String]) throws {
        let pid = try spawn(arguments, log: logDirectory + "/\(name).log")
        lock.lock()
        running[name] = (pid, arguments)
        starts[name] = Date()
        if !order.contains(name) { order.append(name) }
        if monitor == nil {
            let thread = Thread { [weak self] in self?.watch() }
            thread.name = "supervisor"
            monitor = thread
            thread.start()
        }
        lock.unlock()
    }

    /// Runs `buzzkit ARGS` to completion and returns its standard output.
    public func run(_ arguments: [String]) throws -> String {
        let output = logDirectory + "/run-\(UUID().uuidString).out"
        let pid = try spawn(arguments, log: logDirectory + "/run.log", stdout: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard status == 0 else { throw SimulatorError("buzzkit \(arguments.joined(separator: " ")) failed (wait status \(status)); see \(logDirectory)/run.log") }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` to the process `name`. A SIGKILL is recorded as the drill's doing, and
    /// the process is restarted after `restartDelay`.
    @discardableResult
    public func signal(_ name: String, _ signal: Int32) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard let entry = running[name] else { return false }
        if signal == SIGKILL { killed.insert(name) }
        return kill(entry.pid, signal) == 0
    }

    /// When `name` was last (re)started.
    public func startedAt(_ name: String) -> Date? {
        lock.lock(); defer { lock.unlock() }
        return starts[name]
    }

    /// Every exit so far.
    public var exits: [Exit] {
        lock.lock(); defer { lock.unlock() }
        return exitLog
    }

    /// SIGTERM to every process (in reverse start order); returns those that did not exit 0
    /// within `grace`.
    public func stop(grace: Double) -> [String] {
        lock.lock()
        stopping = true
        let names = order.reversed().filter { running[$0] != nil }
        for name in names { _ = kill(running[name]!.pid, SIGCONT); _ = kill(running[name]!.pid, SIGTERM) }
        lock.unlock()
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            lock.lock(); let left = running.count; lock.unlock()
            if left == 0 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        lock.lock()
        var unclean = running.keys.map { "\($0) (still running after \(Int(grace)) s)" }
        for (_, entry) in running { kill(entry.pid, SIGKILL) }
        let stoppedAt = Date().addingTimeInterval(-grace - 1)
        unclean += exitLog.filter { $0.at > stoppedAt && !$0.expected && $0.status != 0 }.map { "\($0.name) (exit \($0.status))" }
        lock.unlock()
        return unclean
    }

    /// Reaps its own children (only those: other code in the process may have children too)
    /// and restarts the ones that died while the drill runs.
    private func watch() {
        while true {
            lock.lock()
            if stopping && running.isEmpty { lock.unlock(); return }
            let pids = running.map { ($0.key, $0.value.pid) }
            lock.unlock()
            var reaped = false
            for (name, pid) in pids {
                var status: Int32 = 0
                guard waitpid(pid, &status, WNOHANG) == pid else { continue }
                reaped = true
                exited(name, pid: pid, status: status)
            }
            if !reaped { Thread.sleep(forTimeInterval: 0.02) }
        }
    }

    private func exited(_ name: String, pid: pid_t, status: Int32) {
        lock.lock()
        guard let entry = running[name], entry.pid == pid else { lock.unlock(); return }
        running[name] = nil
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
        let expected = killed.remove(name) != nil
        exitLog.append(Exit(name: name, at: Date(), status: code, expected: expected))
        let restart = !stopping
        lock.unlock()
        guard restart else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + restartDelay) { [weak self] in
            guard let self else { return }
            self.lock.lock(); let stopping = self.stopping; self.lock.unlock()
            if !stopping { try? self.start(name, entry.arguments) }
        }
    }

    private func spawn(_ arguments: [String], log: String, stdout: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        guard result == 0 else { throw SimulatorError("could not start \(binary): \(String(cString: strerror(result)))") }
        return pid
    }
}
