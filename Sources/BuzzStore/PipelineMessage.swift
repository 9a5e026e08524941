import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// A message between pipeline stages (timers and sends). Events travel as plain
/// ``BuzzEvent`` JSON instead, with the tenant in the routing key.
public enum PipelineMessage: Sendable, Codable, Equatable {
    /// A run's timer is due (a wait ends, or a local window's moment: the fallback check).
    /// `window` names the local window when its decision ends the run
    /// (``RunState/settleableWindow``): `fallback-check` then decides it without loading the
    /// run (the pipeline's `WindowDecider`). Older writers leave it out, and older readers ignore it.
    case timer(tenantId: String, runId: UUID, timer: RunTimer, window: Window? = nil)
    /// Send a silent plan to every active device of the subscriber.
    case sendPlan(tenantId: String, runId: UUID, subscriberId: String, delivery: LocalPlanDelivery)
    /// Send an alert (a fallback or an ordinary push step) to every active device.
    case sendAlert(tenantId: String, runId: UUID, subscriberId: String, fallback: Bool, delivery: AlertDelivery)
    /// Send `bk.cancel` to the devices that were sent a plan of the run, or to `recipients`
    /// when given (their rows are gone: the subscriber was erased).
    case sendCancel(tenantId: String, runId: UUID, subscriberId: String, delivery: CancelDelivery, recipients: [CancelRecipient]? = nil)

    /// The local window a timer decides, when the decision ends its run.
    public struct Window: Sendable, Codable, Equatable {
        public var subscriberId: String
        /// `<runId>/<stepName>`.
        public var localId: String

        public init(subscriberId: String, localId: String) { (self.subscriberId, self.localId) = (subscriberId, localId) }
    }

    public var tenantId: String {
        switch self {
        case .timer(let t, _, _, _), .sendPlan(let t, _, _, _), .sendAlert(let t, _, _, _, _), .sendCancel(let t, _, _, _, _): return t
        }
    }

    public var runId: UUID {
        switch self {
        case .timer(_, let r, _, _), .sendPlan(_, let r, _, _), .sendAlert(_, let r, _, _, _), .sendCancel(_, let r, _, _, _): return r
        }
    }

    /// The queue that handles it: local-window timers and alerts go to `fallback-check`;
    /// other timers, plans and cancels to `plan-dispatch`.
    public var queue: Topology.Queue {
        switch self {
        case .timer(_, _, let timer, _): return timer.purpose == .localWindowDue ? .fallbackCheck : .planDispatch
        case .sendAlert: return .fallbackCheck
        case .sendPlan, .sendCancel: return .planDispatch
        }
    }

    /// A stable message id, so a republished copy is recognisable in logs.
    public var messageId: String {
        switch self {
        case .timer(_, _, let timer, _): return "timer:\(timer.id)"
        case .sendPlan(_, _, _, let d): return "plan:\(d.localId)"
        case .sendAlert(_, _, _, _, let d): return "alert:\(d.idempotencyKey)"
        case .sendCancel(_, let runId, _, _, _): return "cancel:\(runId.lowercasedText)"
        }
    }

    /// The message body: its `Codable` form, written by hand (see `PipelineMessage+JSON.swift`).
    public func encoded() throws -> Data {
        var writer = JSONWriter(capacity: 1024)
        write(to: &writer)
        return Data(writer.bytes)
    }

    public static func decode(_ data: Data) throws -> PipelineMessage {
        try PipelineMessage(json: try JSONParser.parse(data), path: "")
    }

    /// One body carrying several encoded messages for the same queue: a JSON array of them.
    public static func pack(_ bodies: [Data]) -> Data {
        var packed = Data(capacity: bodies.reduce(2) { $0 + $1.count + 1 })
        packed.append(UInt8(ascii: "["))
        for (index, body) in bodies.enumerated() {
            if index > 0 { packed.append(UInt8(ascii: ",")) }
            packed.append(body)
        }
        packed.append(UInt8(ascii: "]"))
        return packed
    }

    /// The messages of a body: one message, or a ``pack(_:)`` of several.
    public static func decodeAll(_ data: Data) throws -> [PipelineMessage] {
        let json = try JSONParser.parse(data)
        guard case .array(let items) = json else { return [try PipelineMessage(json: json, path: "")] }
        return try items.enumerated().map { try PipelineMessage(json: $0.element, path: "[\($0.offset)]") }
    }
}
