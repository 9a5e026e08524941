import AMQPClient
import BuzzCrypto
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import PushDelivery
import PushDeliveryTesting

/// Whole local windows at a steady offered rate, every stage at once: events arrive at
/// `rate` a second for `seconds`, each planning a moment `lead` seconds ahead; a simulated
/// device acknowledges its plan as soon as it is pushed (every other one, unless
/// ``acknowledges`` says otherwise), over HTTP to the API as a phone does
/// (``PhoneAckClient``); at each moment the fallback
/// check decides (and sends for the unacknowledged half). The system keeps up when every
/// window is decided close to its moment: the figure is the windows completed per second
/// and how late the decisions came.
struct SustainedWindows {
    let runtime: Runtime
    let push: InMemoryPushProvider
    let topology: Topology
    let tenantId: String
    let subscribers: Int
    /// The API the phones acknowledge through.
    let phones: PhoneAckClient.Endpoint
    /// Which devices acknowledge their plan as it is pushed (by the number in their token):
    /// every other one unless told otherwise.
    var acknowledges: @Sendable (Int) -> Bool = { $0 % 2 == 0 }

    struct Result {
        var windows: Int
        var offeredRate: Double
        var achievedRate: Double
        /// When the offer began: the phase's runs are those created since.
        var started: Date
        var acknowledged: Int
        var planLateForMoment: Int
        /// Each second of the offer: the events offered but not yet turned into runs (the
        /// trigger stage's backlog), so a backlog that grows from the start (capacity) reads
        /// apart from one that jumps once (a stall).
        var triggerBacklog: [Int]
        /// CPU seconds the bench's driver spent in this process (offering, playing devices,
        /// its publisher), up to the point where every window was decided.
        var driverSeconds: Double
        /// The phones' acknowledgment requests the API recorded per transaction (``DeviceWordBatcher``).
        var requestsPerTransaction: Double
        /// Each accepted acknowledgment's wait from the push seen to its `202`, in seconds, sorted.
        var acknowledgmentWaits: [Double] = []
        /// The API's own time per acknowledgment request on average, from its first byte to its answer.
        var apiSecondsPerAcknowledgment: Double = 0
    }

    /// How late the phase's decisions came after their moments, read by ``lateness(of:)``
    /// once the phase's CPU is sampled (the read is the bench's, not the product's).
    struct Lateness {
        var p50: Double
        var p99: Double
        /// Windows whose moment had passed before their plan could go out (decided at once).
        var momentPassed: Int
        /// Windows decided "scheduled on device": their phone's acknowledgment was recorded
        /// before the moment (a phone that acknowledged later saw its window fall back).
        var heldOnDevice: Int
    }

    /// The events the pacer has published so far (read by the loop that plays the devices).
    private final class Offered: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int { lock.withLock { value } }
        func add(_ n: Int) { lock.withLock { value += n } }
    }

    /// Offers the windows and waits until each is decided; `whenDecided` runs at that point,
    /// before this reads how late each decision came (a query over every window's run, which
    /// is the bench's own work: the CPU and profile figures end there).
    func run(rate: Int, seconds: Int, lead: Double, whenDecided: () -> Void = {}) throws -> Result {
        let total = rate * seconds
        push.removeAllSent()
        // The driver publishes on a publisher of its own, whose thread is counted as the driver's.
        var driverConfiguration = AMQPPublisher.Configuration(endpoints: runtime.amqp)
        driverConfiguration.threadName = DriverCPU.publisherThread
        let publisher = AMQPPublisher(driverConfiguration)
        defer { publisher.close(timeout: 5) }
        let driver = DriverCPU()
        let started = Date()
        let offered = Offered()
        let pacerDone = DispatchSemaphore(value: 0)
        let pacer = Thread {
            driver.measure { try? self.offer(rate: rate, total: total, lead: lead, started: started, offered: offered, publisher: publisher) }
            pacerDone.signal()
        }
        pacer.start()
        return try play(rate: rate, seconds: seconds, lead: lead, started: started, offered: offered, driver: driver,
                        pacerDone: pacerDone, whenDecided: whenDecided)
    }

    /// Plays the devices (those ``acknowledges`` names acknowledge their plan as it is pushed)
    /// until every window is decided, then reads how late each decision came.
    private func play(rate: Int, seconds: Int, lead: Double, started: Date, offered: Offered,
                      driver: DriverCPU, pacerDone: DispatchSemaphore, whenDecided: () -> Void) throws -> Result {
        let loopStarted = DriverCPU.threadSeconds()
        let total = rate * seconds
        // Phones each have a connection of their own: 128 at once (half the API's allowance
        // for one address) keeps the requests from queueing in the client rather than the API.
        let acks = PhoneAckClient(phones, connections: 128)
        let apiBefore = phones.metrics.histogram("buzzkit_http_request_seconds", ["route": "/v1/events"])
        let (requestsBefore, transactionsBefore) = (phones.metrics.counter("buzzkit_device_word_requests_total"),
                                                    phones.metrics.counter("buzzkit_device_word_transactions_total"))
        // Devices: acknowledge a plan the moment it is pushed.
        var seen = 0, acknowledged = 0, lateForMoment = 0
        let deadline = started.addingTimeInterval(Double(seconds) + lead + 120)
        var lastLook = Date.distantPast, done = false
        let startedBefore = runtime.metrics.counter("buzzkit_runs_started_total")
        var backlog: [Int] = []
        while !done {
            if Date().timeIntervalSince(started) >= Double(backlog.count + 1), backlog.count < seconds {
                backlog.append(offered.count - Int(runtime.metrics.counter("buzzkit_runs_started_total") - startedBefore))
            }
            // Every window ends its run: "scheduled on device", the fallback, or (when the
            // moment had passed before the plan could go out) the fallback at once; a settled
            // window counts once the scheduler recorded its decision. So: every run started,
            // and none still open without a decision. None is asked before the last moment (no
            // window is decided before its moment), since each look, once most runs are
            // decided, reads every run of the phase, and its PostgreSQL time is the phase's.
            if Date().timeIntervalSince(lastLook) > 0.5, Date().timeIntervalSince(started) >= Double(seconds) + lead,
               runtime.metrics.counter("buzzkit_runs_started_total") - startedBefore >= Double(total) {
                done = try PipelineBench.noRunOpen(runtime.pool, tenantId: tenantId, since: started, decidedIsClosed: true)
                lastLook = Date()
            }
            guard Date() < deadline else { throw BenchFailure("sustained: of \(total) windows, some were not decided in time") }
            let fresh = push.sent(from: seen)
            seen += fresh.count
            for notification in fresh where notification.pushType == .background {
                guard let plan = try? SilentPlanPayload(jsonData: notification.payload).local,
                      let number = Int(notification.deviceToken, radix: 16) else { continue }
                // A plan's APNs expiration is its moment: one pushed after it came too late.
                if let moment = notification.expiration, moment < Date() { lateForMoment += 1 }
                guard acknowledges(number) else { continue }
                acks.acknowledge(subscriberId: "s\(number)", localId: plan.id, messageId: plan.messageId, device: notification.deviceToken)
                acknowledged += 1
            }
            let turn = Date().addingTimeInterval(0.02)
            acks.pump(for: 0.02)
            if turn.timeIntervalSinceNow > 0 { Thread.sleep(until: turn) }
        }
        let elapsed = Date().timeIntervalSince(started)
        pacerDone.wait()  // every window decided means every event offered: the pacer's CPU is in
        let driverSeconds = driver.seconds + DriverCPU.threadSeconds() - loopStarted
        whenDecided()
        // Answers still on their way once every window is decided are read outside the figures.
        acks.pump(for: 5)
        guard acks.refused.isEmpty else {
            throw BenchFailure("sustained: the API refused phones' acknowledgments (status: requests) \(acks.refused.sorted { $0.key < $1.key })")
        }
        let apiAfter = phones.metrics.histogram("buzzkit_http_request_seconds", ["route": "/v1/events"])
        if acks.retried > 0 { FileHandle.standardError.write(Data("  sustained: \(acks.retried) acknowledgments sent again after a 429, a 5xx or a dropped connection\n".utf8)) }
        return Result(windows: total, offeredRate: Double(rate), achievedRate: Double(total) / (elapsed - lead), started: started,
                      acknowledged: acknowledged, planLateForMoment: lateForMoment, triggerBacklog: backlog, driverSeconds: driverSeconds,
                      requestsPerTransaction: (phones.metrics.counter("buzzkit_device_word_requests_total") - requestsBefore)
                          / max(1, phones.metrics.counter("buzzkit_device_word_transactions_total") - transactionsBefore),
                      acknowledgmentWaits: acks.waits.sorted(),
                      apiSecondsPerAcknowledgment: (apiAfter.sum - apiBefore.sum) / Double(max(1, apiAfter.count - apiBefore.count)))
    }

    /// How late each of `result`'s windows was decided after its moment: the runs' own record,
    /// or the scheduler's decision for a settled window not written into its run yet. The
    /// window's step is read in either stored form (RunStateForm): verbose `finishedAt`, `dueAt`
    /// and `local.fallback`, or compact `f`, `due` (milliseconds) and `l.fb`.
    func lateness(of result: Result) throws -> Lateness {
        let rows = try runtime.pool.withConnection { db in
            try db.query("""
                SELECT EXTRACT(EPOCH FROM (COALESCE(d.decided_at, w.finished) - w.due)) AS late, w.reason, d.acknowledged_at IS NOT NULL AS held
                FROM runs r LEFT JOIN window_decisions d ON d.run_id = r.id,
                     LATERAL (SELECT r.state::json->'steps'->1 AS step) j,
                     LATERAL (SELECT COALESCE((j.step->>'finishedAt')::timestamptz, to_timestamp((j.step->>'f')::bigint / 1000.0)) AS finished,
                                     COALESCE((j.step->>'dueAt')::timestamptz, to_timestamp((j.step->>'due')::bigint / 1000.0)) AS due,
                                     COALESCE(j.step->'local'->'fallback'->>'reason', j.step->'l'->'fb'->>'reason') AS reason) w
                WHERE tenant_id = \(tenantId) AND created_at >= \(result.started) AND (status = 'completed' OR d.run_id IS NOT NULL)
                """)
        }
        let lateness = try rows.map { try $0.decode("late", as: Double.self) }.sorted()
        let momentPassed = try rows.filter { try $0.decode("reason", as: String?.self) == "the moment had passed when the wait began" }.count
        let held = try rows.filter { try $0.decode("held", as: Bool.self) }.count
        return Lateness(p50: lateness.percentile(0.5), p99: lateness.percentile(0.99), momentPassed: momentPassed, heldOnDevice: held)
    }

    /// Publishes `total` events at `rate` a second (catching up in bigger batches when a
    /// confirm round takes longer than a step), each with its moment `lead` ahead.
    private func offer(rate: Int, total: Int, lead: Double, started: Date, offered: Offered, publisher: AMQPPublisher) throws {
        var sent = 0
        while sent < total {
            let target = min(total, Int(Double(rate) * Date().timeIntervalSince(started)) + 1)
            guard target > sent else { Thread.sleep(forTimeInterval: 0.005); continue }
            let moment = RFC3339.format(Date().addingTimeInterval(lead))
            var batch: [AMQPMessage] = []
            while sent < target {
                sent += 1
                let event = BuzzEvent(event: "workout.scheduled", subscriberId: "s\((sent - 1) % subscribers + 1)",
                                      properties: ["at": .string(moment)], timestamp: Date())
                batch.append(AMQPMessage(exchange: topology.eventsExchange, routingKey: Topology.routingKey(tenantId: tenantId, event: event.event),
                                         body: event.jsonData, messageId: RandomIdentifier.text()))
            }
            try publisher.publishAndWait(batch)
            offered.add(batch.count)
        }
    }
}
