import Foundation

/// BuzzKit's RabbitMQ topology: the ingest exchange, the four work queues and their
/// dead-letter queues.
///
/// Routing: services and the API publish events to the topic exchange `buzzkit.events` with
/// routing key `<tenantId>.<event>`. A device's word on a plan it holds (acknowledgments
/// `*.$local.scheduled` and releases `*.$local.released`) is bound to `ack-ingest`; every
/// other event is unroutable there and falls through the exchange's alternate exchange
/// (`buzzkit.events.other`, fanout) into `trigger`. So each event is delivered once, to the
/// one queue that handles it, without a catch-all binding: `trigger` never sees them.
/// (Operators who add their own bindings to `buzzkit.events` must also bind `trigger`
/// explicitly for the events they route elsewhere.)
///
/// Campaigns take the bulk lane: events published to `buzzkit.events.bulk` (the API's
/// `POST /v1/events/bulk`, or a tenant's unmarked events beyond its interactive allowance) go
/// to `trigger-bulk`, and the plans of the runs they start go to `plan-dispatch-bulk` unless
/// their moment is near. Bulk consumers yield to their interactive partner queue while it has
/// work waiting (``Lane``, `LaneGate`), so a campaign never delays an interactive event.
///
/// Work queues are quorum queues with a delivery limit: a message that keeps failing is
/// dead-lettered (at least once) to `<queue>.dlq` instead of looping forever.
public struct Topology: Sendable {
    /// The queues workers consume.
    public enum Queue: String, Sendable, CaseIterable {
        case trigger
        case triggerBulk = "trigger-bulk"
        case planDispatch = "plan-dispatch"
        case planDispatchBulk = "plan-dispatch-bulk"
        case ackIngest = "ack-ingest"
        case fallbackCheck = "fallback-check"

        /// The lane the queue serves.
        public var lane: Lane { self == .triggerBulk || self == .planDispatchBulk ? .bulk : .interactive }

        /// The queue of the same stage in the interactive lane (itself for an interactive queue).
        public var interactivePartner: Queue {
            switch self {
            case .triggerBulk: return .trigger
            case .planDispatchBulk: return .planDispatch
            default: return self
            }
        }

        /// The queue of the same stage in `lane` (ack-ingest and fallback-check have one lane).
        public func inLane(_ lane: Lane) -> Queue {
            switch (self.interactivePartner, lane) {
            case (.trigger, .bulk): return .triggerBulk
            case (.planDispatch, .bulk): return .planDispatchBulk
            default: return self.interactivePartner
            }
        }
    }

    /// Interactive work (the default) or bulk work (campaigns), which yields to it.
    public enum Lane: String, Sendable, CaseIterable {
        case interactive
        case bulk
    }

    /// Prepended to every exchange and queue name (empty in production; tests isolate with it).
    public var prefix: String
    /// Deliveries before a failing message is dead-lettered.
    public var deliveryLimit: Int
    /// How long a dead letter is kept before RabbitMQ drops it (`x-message-ttl` of every
    /// `.dlq`): long enough to look at it and replay it (`buzzkit dlq`), not forever, since it
    /// may carry a subscriber's data. Default 14 days.
    public static let deadLetterTTLSeconds: Int64 = 14 * 86_400

    public init(prefix: String = "", deliveryLimit: Int = 10) {
        self.prefix = prefix
        self.deliveryLimit = deliveryLimit
    }

    public var eventsExchange: String { prefix + "buzzkit.events" }
    public var otherEventsExchange: String { prefix + "buzzkit.events.other" }
    /// The bulk lane's ingest exchange: the same routing keys as ``eventsExchange``.
    public var bulkEventsExchange: String { prefix + "buzzkit.events.bulk" }
    public var otherBulkEventsExchange: String { prefix + "buzzkit.events.bulk.other" }

    /// The ingest exchange of `lane`.
    public func eventsExchange(_ lane: Lane) -> String { lane == .bulk ? bulkEventsExchange : eventsExchange }

    /// Where the API publishes the events it takes (never a device's word on a plan, which it
    /// records itself): the fanout exchange that feeds `lane`'s trigger queue, where the
    /// ingest exchange's alternate exchange sends the same events. Same routing key, one
    /// exchange hop fewer (the topic lookup that finds no binding, then the alternate).
    public func triggerExchange(_ lane: Lane) -> String { lane == .bulk ? otherBulkEventsExchange : otherEventsExchange }

    public func name(_ queue: Queue) -> String { prefix + queue.rawValue }

    /// The queues whose messages are pipeline messages, which may be packed several to a
    /// broker message (``Topology/itemsHeader``).
    public var packableQueues: Set<String> { Set([Queue.planDispatch, .planDispatchBulk, .fallbackCheck].map(name)) }
    public func deadLetterName(_ queue: Queue) -> String { prefix + queue.rawValue + ".dlq" }

    /// The `buzzkit.events` bindings of `ack-ingest` (everything else goes to `trigger`).
    public static let ackIngestKeys = ["*.$local.scheduled", "*.$local.released"]

    /// The header the API sets on events a device sent (publishable key and subscriber token).
    public static let originHeader = "x-buzzkit-origin"
    /// On a message that packs several pipeline messages (a JSON array, see
    /// ``PipelineMessage/decodeAll(_:)``): how many. Workers count it toward their batch size.
    public static let itemsHeader = "x-buzzkit-items"
    /// ``originHeader``'s value for a device's event.
    public static let deviceOrigin = "device"

    /// The key an event id is deduplicated under, per tenant. A backend's ids (secret key, or
    /// published over AMQP) share one space, `id:<id>`; a device's ids are its subscriber's
    /// own, `device:<bytes of the subscriber id>:<subscriber id>:<id>`, so a device can
    /// neither suppress a backend's event nor another subscriber's by reusing its id.
    public static func dedupeKey(eventId: String, subscriberId: String, fromDevice: Bool) -> String {
        fromDevice ? "device:\(subscriberId.utf8.count):\(subscriberId):\(eventId)" : "id:" + eventId
    }

    /// The routing key of an event: `<tenantId>.<event>`. It fits AMQP's 255 bytes by
    /// construction: tenant ids are `t_` and 16 hex digits (18 bytes) and event names at most
    /// 200 bytes of UTF-8 (``EventInput``), 219 bytes in all.
    public static func routingKey(tenantId: String, event: String) -> String { "\(tenantId).\(event)" }
}
