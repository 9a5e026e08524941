import Foundation

/// The run summary served by `GET /v1/runs/{id}`:
/// `{"id", "workflow", "subscriberId", "dryRun", "status", "steps": [...], "cancelled"}`.
/// `cancelled` is an explicit `null` unless the run was cancelled.
public struct RunSummary: Sendable, Hashable, Codable {
    /// The run id.
    public var id: String
    /// The workflow key.
    public var workflow: String
    /// The subscriber the run is for.
    public var subscriberId: String
    /// Whether this is a dry run (nothing is ever sent).
    public var dryRun: Bool
    /// The run's status.
    public var status: RunStatus
    /// The steps that have begun, in the order they began.
    public var steps: [Step]
    /// How and when the run was cancelled.
    @WireForm.OrNull public var cancelled: Cancellation?
    /// The first open of a notification of the run (`$push.opened`), or `null`.
    @WireForm.OrNull public var opened: Opened?

    /// A summary from its parts.
    public init(id: String, workflow: String, subscriberId: String, dryRun: Bool, status: RunStatus,
                steps: [Step], cancelled: Cancellation? = nil) {
        self.id = id
        self.workflow = workflow
        self.subscriberId = subscriberId
        self.dryRun = dryRun
        self.status = status
        self.steps = steps
        self.cancelled = cancelled
    }

    /// One step in the run summary: `{"name", "status", "startedAt", "finishedAt", "local"}`.
    /// `finishedAt` and `local` are explicit `null`s when absent (`local` is set for
    /// `deliver: "local"` sends only).
    public struct Step: Sendable, Hashable, Codable {
        /// The step's name.
        public var name: String
        /// The step's status.
        public var status: StepStatus
        /// When the step began.
        @WireForm.Instant public var startedAt: Date
        /// When the step finished.
        @WireForm.InstantOrNull public var finishedAt: Date?
        /// The local window, for a local send.
        @WireForm.OrNull public var local: LocalWindow?
        /// Every push sent for the step, in the order they were sent (the server fills it in).
        @WireForm.List public var deliveries: [Delivery] = []
        /// The first open of the step's notification (local or fallback alike, by message id);
        /// explicit `null` when none (the server fills it in).
        @WireForm.OrNull public var opened: Opened?
        /// The buttons chosen on the step's notification, in order (the server fills it in).
        @WireForm.List public var actions: [ActionTaken] = []

        /// A step summary from its parts.
        public init(name: String, status: StepStatus, startedAt: Date, finishedAt: Date? = nil,
                    local: LocalWindow? = nil) {
            self.name = name
            self.status = status
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.local = local
        }
    }

    /// A button chosen on a step's notification: `{"actionId", "at"}` (DESIGN §4c).
    public struct ActionTaken: Sendable, Hashable, Codable {
        public var actionId: String
        @WireForm.Instant public var at: Date

        public init(actionId: String, at: Date) {
            self.actionId = actionId
            self.at = at
        }
    }

    /// The summary's `cancelled` member: `{"by": "event"|"api", "event": name|null, "at"}`.
    public struct Cancellation: Sendable, Hashable, Codable {
        /// What cancelled a run: the summary's `cancelled.by`.
        public enum Source: String, Sendable, Hashable, Codable {
            /// A `cancelOn` event.
            case event
            /// `POST /v1/runs/{id}/cancel`.
            case api
        }

        /// What cancelled the run.
        public var by: Source
        /// The cancelling event's name (`null` for an API cancel).
        public var event: String?
        /// When the run was cancelled.
        public var at: Date

        /// A cancellation from its parts.
        public init(by: Source, event: String?, at: Date) {
            self.by = by
            self.event = event
            self.at = at
        }

        /// The stored form (``init(json:path:)`` and ``write(to:)``: one mapping for Codable too).
        public init(from decoder: any Decoder) throws { try self.init(decodingWith: decoder) }
        public func encode(to encoder: any Encoder) throws { try encode(with: encoder) }
    }
}
