import BuzzCrypto
import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// A tenant's settings as the pipeline reads them.
public struct TenantRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    public var defaultTimezone: String
    public var quietHours: QuietHours?
    public var signingSecret: String
    /// The signing secret before the latest rotation, and until when it still verifies tokens.
    public var previousSigningSecret: String?
    public var previousSigningSecretUntil: Date?
    /// The APNs topics (bundle ids) devices may register with; empty for any.
    public var allowedTopics: [String]

    public init(id: String, name: String, defaultTimezone: String = "UTC", quietHours: QuietHours? = nil, signingSecret: String,
                previousSigningSecret: String? = nil, previousSigningSecretUntil: Date? = nil, allowedTopics: [String] = []) {
        self.id = id
        self.name = name
        self.defaultTimezone = defaultTimezone
        self.quietHours = quietHours
        self.signingSecret = signingSecret
        self.previousSigningSecret = previousSigningSecret
        self.previousSigningSecretUntil = previousSigningSecretUntil
        self.allowedTopics = allowedTopics
    }

    /// The signing secrets that verify a subscriber token at `now`: the current one, and the
    /// previous one during its grace period.
    public func signingSecrets(at now: Date) -> [String] {
        guard let previous = previousSigningSecret, let until = previousSigningSecretUntil, now < until else { return [signingSecret] }
        return [signingSecret, previous]
    }
}

/// A subscriber of a tenant.
public struct SubscriberRecord: Sendable, Equatable {
    public var tenantId: String
    public var id: String
    public var timezone: String?
    public var properties: [String: JSONValue]

    public init(tenantId: String, id: String, timezone: String? = nil, properties: [String: JSONValue] = [:]) {
        self.tenantId = tenantId
        self.id = id
        self.timezone = timezone
        self.properties = properties
    }
}

/// A device registered for push.
public struct DeviceRecord: Sendable, Equatable {
    public var id: UUID
    public var tenantId: String
    public var subscriberId: String
    public var platform: String
    public var token: String
    public var topic: String
    /// `production` or `sandbox`.
    public var environment: String
    public var active: Bool
    /// The notification permission the device last reported: `authorized`, `provisional`,
    /// `denied` or `notDetermined`; nil when it never said. Informational: silent plan pushes
    /// need no permission, so every active device gets them whatever this says.
    public var authorization: String?
    /// The app install that registered the token last (device registration's `installId`); nil
    /// when it did not say.
    public var installId: String?
    /// `inactive_reason` of a device whose app was deleted and installed again on the phone
    /// (the new install said it replaced this one).
    public static let reinstalledReason = "reinstalled"

    public init(id: UUID = RandomIdentifier.uuid(), tenantId: String, subscriberId: String, platform: String = "ios", token: String,
                topic: String, environment: String = "production", active: Bool = true, authorization: String? = nil,
                installId: String? = nil) {
        self.id = id
        self.tenantId = tenantId
        self.subscriberId = subscriberId
        self.platform = platform
        self.token = token
        self.topic = topic
        self.environment = environment
        self.active = active
        self.authorization = authorization
        self.installId = installId
    }
}

/// One stored version of a workflow.
public struct WorkflowRecord: Sendable, Equatable {
    public var tenantId: String
    public var key: String
    public var version: Int
    public var definition: WorkflowDefinition
    /// The JSON the tenant stored (returned by `GET /v1/workflows/{key}`); `null` where the
    /// pipeline read only the parsed definition from its cache.
    public var source: JSONValue

    public init(tenantId: String, key: String, version: Int, definition: WorkflowDefinition, source: JSONValue) {
        self.tenantId = tenantId
        self.key = key
        self.version = version
        self.definition = definition
        self.source = source
    }
}

/// A run row: identity, indexes the pipeline queries on, and the engine's state.
public struct RunRecord: Sendable, Equatable {
    public var id: UUID
    public var tenantId: String
    public var workflowKey: String
    public var workflowVersion: Int
    public var subscriberId: String?
    public var dryRun: Bool
    public var state: RunState
    /// Started by a bulk event: its plans and wait timers take the bulk lane (``LaneSettings``).
    public var bulk: Bool

    public init(id: UUID, tenantId: String, workflowKey: String, workflowVersion: Int, subscriberId: String?, dryRun: Bool, state: RunState,
                bulk: Bool = false) {
        self.bulk = bulk
        self.id = id
        self.tenantId = tenantId
        self.workflowKey = workflowKey
        self.workflowVersion = workflowVersion
        self.subscriberId = subscriberId
        self.dryRun = dryRun
        self.state = state
    }

    /// Event names that may cancel the run while it is open (all `cancelOn` rules).
    public var cancelEvents: [String] {
        state.status.isFinal ? [] : Array(Set(state.workflow.cancelOn.map(\.event))).sorted()
    }
}

/// What a sender should do about one (idempotency key, device) pair.
public enum DeliveryClaim: Sendable, Equatable {
    /// Not sent before: send it.
    case send
    /// Earlier attempts failed, the first at `since`: send it again (if its lifetime allows).
    case retry(since: Date)
    /// Sent (or finally refused) before: do nothing.
    case alreadyDone
}

/// The outcome of one push attempt, written to the deliveries table.
public struct DeliveryOutcome: Sendable, Equatable {
    /// `sent`, `failed` (to be retried), `expired` (failed until its lifetime ended), `rejected`
    /// or `unregistered`.
    public var status: String
    public var apnsId: String?
    public var httpStatus: Int?
    public var reason: String?
    public var attempts: Int

    public init(status: String, apnsId: String? = nil, httpStatus: Int? = nil, reason: String? = nil, attempts: Int = 1) {
        self.status = status
        self.apnsId = apnsId
        self.httpStatus = httpStatus
        self.reason = reason
        self.attempts = attempts
    }
}

/// One (idempotency key, device) pair to claim for sending.
public struct DeliveryRequest: Sendable, Equatable {
    public var tenantId: String
    public var runId: UUID?
    public var idempotencyKey: String
    public var deviceId: UUID
    /// `plan`, `cancel`, `fallback` or `push`.
    public var kind: String
    public var messageId: String?

    public init(tenantId: String, runId: UUID?, idempotencyKey: String, deviceId: UUID, kind: String, messageId: String?) {
        self.tenantId = tenantId
        self.runId = runId
        self.idempotencyKey = idempotencyKey
        self.deviceId = deviceId
        self.kind = kind
        self.messageId = messageId
    }
}
