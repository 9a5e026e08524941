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
    public var cancelled: Cancellation?
    /// The first open of a notification of the run (`$push.opened`), or `null`.
    public var opened: Opened?

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

    private enum CodingKeys: String, CodingKey { case id, workflow, subscriberId, dryRun, status, steps, cancelled, opened }

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        workflow = try container.decode(String.self, forKey: .workflow)
        subscriberId = try container.decode(String.self, forKey: .subscriberId)
        dryRun = try container.decode(Bool.self, forKey: .dryRun)
        status = try container.decode(RunStatus.self, forKey: .status)
        steps = try container.decode([Step].self, forKey: .steps)
        cancelled = try container.decodeIfPresent(Cancellation.self, forKey: .cancelled)
        opened = try container.decodeIfPresent(Opened.self, forKey: .opened)
    }

    /// Encodes the wire form with an explicit `cancelled: null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(workflow, forKey: .workflow)
        try container.encode(subscriberId, forKey: .subscriberId)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(status, forKey: .status)
        try container.encode(steps, forKey: .steps)
        try container.encodeOrNull(cancelled, forKey: .cancelled)
        try container.encodeOrNull(opened, forKey: .opened)
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
        public var startedAt: Date
        /// When the step finished.
        public var finishedAt: Date?
        /// The local window, for a local send.
        public var local: LocalWindow?
        /// Every push sent for the step, in the order they were sent (the server fills it in).
        public var deliveries: [Delivery] = []
        /// The first open of the step's notification (local or fallback alike, by message id);
        /// explicit `null` when none (the server fills it in).
        public var opened: Opened?
        /// The buttons chosen on the step's notification, in order (the server fills it in).
        public var actions: [ActionTaken] = []

        /// A step summary from its parts.
        public init(name: String, status: StepStatus, startedAt: Date, finishedAt: Date? = nil,
                    local: LocalWindow? = nil) {
            self.name = name
            self.status = status
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.local = local
        }

        private enum CodingKeys: String, CodingKey { case name, status, startedAt, finishedAt, local, deliveries, opened, actions }

        /// Decodes the wire form.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            status = try container.decode(StepStatus.self, forKey: .status)
            startedAt = try container.decodeInstant(forKey: .startedAt)
            finishedAt = try container.decodeInstantIfPresent(forKey: .finishedAt)
            local = try container.decodeIfPresent(LocalWindow.self, forKey: .local)
            deliveries = try container.decodeIfPresent([Delivery].self, forKey: .deliveries) ?? []
            opened = try container.decodeIfPresent(Opened.self, forKey: .opened)
            actions = try container.decodeIfPresent([ActionTaken].self, forKey: .actions) ?? []
        }

        /// Encodes the wire form with explicit `null`s.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(status, forKey: .status)
            try container.encodeInstant(startedAt, forKey: .startedAt)
            try container.encodeInstantOrNull(finishedAt, forKey: .finishedAt)
            try container.encodeOrNull(local, forKey: .local)
            try container.encode(deliveries, forKey: .deliveries)
            try container.encodeOrNull(opened, forKey: .opened)
            try container.encode(actions, forKey: .actions)
        }
    }

    /// A button chosen on a step's notification: `{"actionId", "at"}` (DESIGN §4c).
    public struct ActionTaken: Sendable, Hashable, Codable {
        public var actionId: String
        public var at: Date

        public init(actionId: String, at: Date) {
            self.actionId = actionId
            self.at = at
        }

        private enum CodingKeys: String, CodingKey { case actionId, at }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            actionId = try container.decode(String.self, forKey: .actionId)
            at = try container.decodeInstant(forKey: .at)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(actionId, forKey: .actionId)
            try container.encodeInstant(at, forKey: .at)
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
