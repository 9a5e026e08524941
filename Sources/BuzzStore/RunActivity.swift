import BuzzKitWire
import BuzzServerCore
import Foundation

/// What was sent for a run and whether a notification of it was opened: the delivery log
/// and `opened` of its summary (docs/contract.md §4b).
public struct RunActivity: Sendable, Equatable {
    /// One delivery row: a push to one device under one idempotency key.
    public struct Entry: Sendable, Equatable {
        public var idempotencyKey: String
        /// As stored: `plan`, `cancel`, `fallback` or `push`.
        public var kind: String
        public var status: String
        public var apnsId: String?
        /// When it was sent, or claimed if it is being sent.
        public var at: Date
        public var reason: String?
        /// The device token's last 8 characters; empty when the device is gone.
        public var tokenSuffix: String

        public init(idempotencyKey: String, kind: String, status: String, apnsId: String?, at: Date, reason: String?, tokenSuffix: String) {
            self.idempotencyKey = idempotencyKey
            self.kind = kind
            self.status = status
            self.apnsId = apnsId
            self.at = at
            self.reason = reason
            self.tokenSuffix = tokenSuffix
        }
    }

    /// A button chosen on one of the run's notifications (`$push.action`).
    public struct Action: Sendable, Equatable {
        public var messageId: String
        public var actionId: String
        public var at: Date

        public init(messageId: String, actionId: String, at: Date) {
            self.messageId = messageId
            self.actionId = actionId
            self.at = at
        }
    }

    /// In the order they were claimed.
    public var deliveries: [Entry] = []
    /// The run's first open.
    public var opened: RunSummary.Opened?
    /// The first open of each of the run's messages.
    public var opens: [RunSummary.Opened] = []
    /// The buttons chosen, in time order.
    public var actions: [Action] = []

    public init(deliveries: [Entry] = [], opened: RunSummary.Opened? = nil, opens: [RunSummary.Opened] = [], actions: [Action] = []) {
        self.deliveries = deliveries
        self.opened = opened
        self.opens = opens
        self.actions = actions
    }
}
