import BuzzKitWire
import BuzzServerCore
import Foundation

/// What was sent for a run and whether a notification of it was opened: the delivery log
/// and `opened` of its summary (docs/contract.md §4b), each entry in its wire form with the
/// key the summary files it under.
public struct RunActivity: Sendable, Equatable {
    /// One delivery row: a push to one device under one idempotency key. The delivery's
    /// `kind` is as stored (`plan`, `cancel`, `fallback` or `push`); the summary names a
    /// `push` `alert`.
    public struct Entry: Sendable, Equatable {
        public var idempotencyKey: String
        public var delivery: RunSummary.Delivery

        public init(idempotencyKey: String, delivery: RunSummary.Delivery) {
            self.idempotencyKey = idempotencyKey
            self.delivery = delivery
        }
    }

    /// A button chosen on one of the run's notifications (`$push.action`), with the message
    /// it was chosen on.
    public struct Action: Sendable, Equatable {
        public var messageId: String
        public var taken: RunSummary.ActionTaken

        public init(messageId: String, taken: RunSummary.ActionTaken) {
            self.messageId = messageId
            self.taken = taken
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
