import BuzzKitWire

/// Work a run asks its runner to do, returned by ``RunState/handle(_:now:)``. Persist the
/// actions in the same transaction as the new state (timers in a timer table, sends in an
/// outbox); they are data, the engine performs none of them.
public enum RunAction: Sendable, Hashable, Codable {
    /// Fire ``RunInput/timerFired(_:)`` with this timer once its `at` has passed.
    case scheduleTimer(RunTimer)
    /// Delete every pending timer of the run (it was cancelled).
    case cancelTimers(runId: String)
    /// Send the silent plan to every device of the subscriber.
    case sendLocalPlan(LocalPlanDelivery)
    /// Send an ordinary alert push (`deliver: "push"`).
    case sendPush(AlertDelivery)
    /// Send a local window's fallback alert (no device confirmed, or the moment had passed).
    case sendFallback(AlertDelivery)
    /// Send `bk.cancel` to every device of the subscriber.
    case sendCancel(CancelDelivery)
    /// The run's status changed during this call (reported once, with the final status).
    case statusChanged(RunStatus)

    /// Whether the action sends something to a device.
    public var isSend: Bool {
        switch self {
        case .sendLocalPlan, .sendPush, .sendFallback, .sendCancel: return true
        case .scheduleTimer, .cancelTimers, .statusChanged: return false
        }
    }

    /// The action's name in its stored form (`scheduleTimer`, `sendFallback`, …).
    public var type: String {
        switch self {
        case .scheduleTimer: return "scheduleTimer"
        case .cancelTimers: return "cancelTimers"
        case .sendLocalPlan: return "sendLocalPlan"
        case .sendPush: return "sendPush"
        case .sendFallback: return "sendFallback"
        case .sendCancel: return "sendCancel"
        case .statusChanged: return "statusChanged"
        }
    }

    private enum CodingKeys: String, CodingKey { case type, timer, runId, delivery, status }

    /// Decodes `{"type": …, <member>: …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "scheduleTimer": self = .scheduleTimer(try container.decode(RunTimer.self, forKey: .timer))
        case "cancelTimers": self = .cancelTimers(runId: try container.decode(String.self, forKey: .runId))
        case "sendLocalPlan": self = .sendLocalPlan(try container.decode(LocalPlanDelivery.self, forKey: .delivery))
        case "sendPush": self = .sendPush(try container.decode(AlertDelivery.self, forKey: .delivery))
        case "sendFallback": self = .sendFallback(try container.decode(AlertDelivery.self, forKey: .delivery))
        case "sendCancel": self = .sendCancel(try container.decode(CancelDelivery.self, forKey: .delivery))
        case "statusChanged": self = .statusChanged(try container.decode(RunStatus.self, forKey: .status))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown action type \"\(type)\"")
        }
    }

    /// Encodes `{"type": …, <member>: …}`: `timer`, `runId`, `delivery` or `status`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .scheduleTimer(let timer): try container.encode(timer, forKey: .timer)
        case .cancelTimers(let runId): try container.encode(runId, forKey: .runId)
        case .sendLocalPlan(let delivery): try container.encode(delivery, forKey: .delivery)
        case .sendPush(let delivery), .sendFallback(let delivery): try container.encode(delivery, forKey: .delivery)
        case .sendCancel(let delivery): try container.encode(delivery, forKey: .delivery)
        case .statusChanged(let status): try container.encode(status, forKey: .status)
        }
    }
}
