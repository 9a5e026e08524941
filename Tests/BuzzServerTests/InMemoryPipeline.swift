import BuzzEngine
import BuzzKitWire
import BuzzServerTesting
import BuzzTesting
import Foundation
import PushDelivery
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore
import PushDeliveryTesting

/// The pipeline's stages over the in-memory store, broker and push provider, with a manual
/// clock: `event(_:subscriber:)` runs the trigger stage on one event, and `pump()` plays the
/// scheduler and the queues' workers (``InMemoryWorkers``) until nothing is left to do now.
final class InMemoryPipeline {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_029_200))  // 2026-11-30T09:00:00Z
    let store: InMemoryStore
    let push = InMemoryPushProvider()
    let context: PipelineContext
    let broker = InMemoryBroker()
    let workers: InMemoryWorkers
    let tenantId = "t_1"

    /// `triggerSends`: whether the trigger stage pushes a new run's plan itself (else
    /// `plan-dispatch` does, from an outbox message).
    init(triggerSends: Bool = true) {
        store = InMemoryStore(clock: clock)
        var context = PipelineContext(store: store, topology: Topology(), push: push, clock: clock)
        context.lanes.triggerSends = triggerSends
        self.context = context
        workers = InMemoryWorkers(context: context, broker: broker, outbox: InMemoryOutbox(store: store))
        store.withState { state in
            state.tenants[tenantId] = TenantRecord(id: tenantId, name: "gym", signingSecret: "s")
        }
    }

    var directory: InMemoryDirectory { InMemoryDirectory(store: store) }

    func addWorkflow(_ json: String) throws {
        let source = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        try directory.putWorkflow(tenantId: tenantId, definition: try WorkflowDefinition.parse(source), source: source)
    }

    @discardableResult
    func addSubscriber(_ id: String, devices: Int, timezone: String = "UTC") throws -> [DeviceRecord] {
        try directory.putSubscriber(SubscriberRecord(tenantId: tenantId, id: id, timezone: timezone))
        return try (0..<devices).map { n in
            var device = DeviceRecord(tenantId: tenantId, subscriberId: id, token: Self.token("\(id)-\(n)"), topic: "com.example.gym")
            device.id = try directory.putDevice(device, maxActive: 1000)
            return device
        }
    }

    func event(_ name: String, subscriber: String, properties: [String: JSONValue] = [:], id: String? = nil) throws {
        let item = EventProcessor.Item(tenantId: tenantId, event: BuzzEvent(id: id, event: name, subscriberId: subscriber,
                                                                             properties: properties, timestamp: clock.now), dedupeKey: id)
        _ = try StageProcessor(context: context).process([.event(item)])
    }

    /// Relays every outbox row that is due (immediate ones at once) and processes every
    /// queue's messages, repeatedly, as the scheduler and workers do. Returns how many
    /// deliveries were processed.
    @discardableResult
    func pump() throws -> Int { try workers.runUntilIdle() }

    /// The pipeline messages published so far (a packed delivery's one by one).
    var delivered: [PipelineMessage] {
        broker.published.filter { $0.exchange.isEmpty }.flatMap { (try? PipelineMessage.decodeAll($0.body)) ?? [] }
    }

    /// The runs as their summaries show them (recorded plan deliveries and acknowledgments
    /// folded in, as `GET /v1/runs/{id}` does).
    var runs: [RunRecord] {
        let stored = store.withState { Array($0.runs.values) }
        return (try? store.transaction { tx in try stored.map { try PendingFacts.folded($0, tx: tx) } }) ?? stored
    }

    func pushes(to device: DeviceRecord) -> [PushNotification] { push.sent.filter { $0.deviceToken == device.token } }

    /// A 64-hex-digit device token derived from `seed`.
    static func token(_ seed: String) -> String {
        var state: UInt64 = 1469598103934665603
        return (0..<4).map { _ in
            for byte in seed.utf8 { state = (state ^ UInt64(byte)) &* 1099511628211 }
            return String(format: "%016llx", state)
        }.joined()
    }
}
