import Foundation

/// A fault a drill injects into a running BuzzKit.
public enum Fault: Sendable, Hashable, CustomStringConvertible {
    /// SIGKILL the worker process of one queue (the supervisor starts it again).
    case killWorker(queue: String)
    /// SIGSTOP the scheduler for a while, then SIGCONT.
    case pauseScheduler(seconds: Double)
    /// SIGSTOP the worker process of one queue for a while (a long pause, a node drain), then
    /// SIGCONT: its prefetched messages wait with it.
    case pauseWorker(queue: String, seconds: Double)
    /// Stop and start PostgreSQL (`scripts/services.sh restart-postgres`).
    case restartPostgres
    /// Stop and start RabbitMQ (`scripts/services.sh restart-rabbitmq`).
    case restartRabbitMQ
    /// Cluster mode: SIGKILL the RabbitMQ node that leads the most BuzzKit queues
    /// (`scripts/services.sh cluster-kill-rabbitmq-leader`); once the pipeline works again on
    /// the other two nodes, start it again (`cluster-restore`) and wait until it rejoined.
    case killRabbitMQLeader
    /// Cluster mode: SIGKILL the PostgreSQL primary, postmaster and keeper
    /// (`scripts/services.sh cluster-kill-postgres-primary`), so the monitor promotes the
    /// standby; once the pipeline works again on it, start the old primary again
    /// (`cluster-restore`), which rejoins as the standby.
    case killPostgresPrimary

    public var description: String {
        switch self {
        case .killWorker(let queue): return "SIGKILL worker \(queue)"
        case .pauseScheduler(let seconds): return String(format: "pause scheduler %.0f s", seconds)
        case .pauseWorker(let queue, let seconds): return String(format: "pause worker %@ %.0f s", queue, seconds)
        case .restartPostgres: return "restart PostgreSQL"
        case .restartRabbitMQ: return "restart RabbitMQ"
        case .killRabbitMQLeader: return "SIGKILL the RabbitMQ node leading the most queues"
        case .killPostgresPrimary: return "SIGKILL the PostgreSQL primary"
        }
    }

    /// When in a wave the fault should land so it hits work in flight: just after a wave's
    /// events are posted (triggers, plans and acknowledgments are flowing) or around a
    /// wave's moment (timers firing, fallback checks and sends).
    var anchor: Anchor {
        switch self {
        case .killWorker(let queue) where queue == "fallback-check": return .moment(offset: 0...0.4)
        // Acknowledgments accepted in the last second (last-second phones) while ack-ingest is
        // down must still count at the moment.
        case .killWorker(let queue) where queue == "ack-ingest": return .moment(offset: -1.2 ... -0.6)
        case .pauseWorker(_, let seconds): return .moment(offset: (-seconds / 2 - 0.5) ... (-seconds / 2))
        case .killWorker: return .posted(offset: 0.05...0.6)
        case .pauseScheduler: return .moment(offset: -1.0 ... -0.5)
        case .restartPostgres: return .posted(offset: 0.1...0.5)
        case .restartRabbitMQ: return .moment(offset: -2.0 ... -1.0)
        // Plans and acknowledgments in flight, and the moment's fallback checks soon after.
        case .killRabbitMQLeader, .killPostgresPrimary: return .posted(offset: 0.2...1.0)
        }
    }

    /// True for the cluster faults, whose node the drill brings back after the recovery.
    var losesClusterNode: Bool {
        switch self {
        case .killRabbitMQLeader, .killPostgresPrimary: return true
        default: return false
        }
    }

    enum Anchor {
        case posted(offset: ClosedRange<Double>)
        case moment(offset: ClosedRange<Double>)
    }

    /// The standard drill: every worker queue killed `rounds` times, the scheduler paused,
    /// `ack-ingest` paused for 6 s around a moment, PostgreSQL and RabbitMQ restarted.
    public static func standardDrill(rounds: Int = 1, schedulerPause: Double = 5) -> [Fault] {
        let kills = (0..<max(1, rounds)).flatMap { _ in
            ["trigger", "plan-dispatch", "ack-ingest", "fallback-check"].map { Fault.killWorker(queue: $0) }
        }
        return kills + [.pauseScheduler(seconds: schedulerPause), .pauseWorker(queue: "ack-ingest", seconds: 6), .restartPostgres, .restartRabbitMQ]
    }

    /// The cluster drill (`make chaos-cluster`): lose the busiest RabbitMQ node, then the
    /// PostgreSQL primary, each brought back once the pipeline recovered without it; a worker
    /// of every queue killed in between, as a deployment that loses nodes also loses pods.
    public static let clusterDrill: [Fault] = [.killRabbitMQLeader, .killWorker(queue: "fallback-check"), .killPostgresPrimary,
                                               .killWorker(queue: "ack-ingest")]
}
