import BuzzEngine
import BuzzKitWire
import BuzzServerTesting
import BuzzTesting
import Foundation
import PushDelivery
@testable import BuzzServer
import PushDeliveryTesting

/// The pipeline's stages over the in-memory store and push provider, with a manual clock:
/// `pump()` plays the queues by feeding outbox messages (timers once due) to the stages.
final class InMemoryPipeline {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_029_200))  // 2026-11-30T09:00:00Z
    let store: InMemoryStore
    let push = InMemoryPushProvider()
    let context: PipelineContext
    let tenantId = "t_1"
    var delivered: [PipelineMessage] = []

    /// `crowdedWindows`: from how many windows a `fallback-check` batch decides them without their runs.
    /// `triggerSends`: whether the trigger stage pushes a new run's plan itself (else
    /// `plan-dispatch` does, from an outbox message).
    init(crowdedWindows: Int = 1, triggerSends: Bool = true) {
        store = InMemoryStore(clock: clock)
        var context = PipelineContext(store: store, topology: Topology(), push: push, clock: clock)
        context.crowdedWindows = crowdedWindows
        context.lanes.triggerSends = triggerSends
        self.context = context
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

    /// Delivers every outbox message that is due (immediate ones at once), repeatedly, like
    /// the scheduler and workers together. Returns how many were processed.
    @discardableResult
    func pump() throws -> Int {
        var total = 0
        while true {
            let now = clock.now
            let due = store.withState { state -> [OutboxMessage] in
                let ready = state.outbox.filter { ($0.message.availableAt ?? .distantPast) <= now }
                let ids = Set(ready.map(\.id))
                state.outbox.removeAll { ids.contains($0.id) }
                return ready.map(\.message)
            }
            if due.isEmpty { return total }
            for message in due {
                for decoded in try PipelineMessage.decodeAll(message.body) {
                    delivered.append(decoded)
                    _ = try StageProcessor(context: context).process([.message(decoded)])
                    total += 1
                }
            }
        }
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

    static let legDay = """
        { "key": "leg-day", "trigger": { "event": "workout.scheduled" },
          "cancelOn": [ { "event": "workout.completed" } ],
          "steps": [ { "name": "morning-of", "waitUntil": { "time": "07:00", "timezone": "subscriber" } },
                     { "name": "nudge", "send": { "deliver": "local", "title": "Leg day", "body": "6:00 with Maya." } } ] }
        """
}
