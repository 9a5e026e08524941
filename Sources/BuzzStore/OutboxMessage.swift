import BuzzCrypto
import BuzzEngine
import BuzzServerCore
import Foundation

/// A message to publish once the transaction that caused it commits (or, as a timer, at
/// `availableAt`).
public struct OutboxMessage: Sendable, Equatable {
    public var exchange: String
    public var routingKey: String
    public var messageId: String
    public var body: Data
    /// When the scheduler may publish it; nil means now.
    public var availableAt: Date?
    /// On a local window's timer whose decision needs only the acknowledgments
    /// (``RunState/settleableWindow``): the window, so the scheduler can settle it at its
    /// moment without a queue message when a device holds the plan (the pipeline's `WindowDecider`).
    public var window: Window?
    /// How many pipeline messages the body carries: 1, or more for a packed body
    /// (``PipelineMessage/pack(_:)``), published with ``Topology/itemsHeader``.
    public var items: Int

    /// A local window the scheduler may settle at its moment.
    public struct Window: Sendable, Equatable {
        public var tenantId: String
        public var subscriberId: String
        public var runId: UUID
        public var localId: String

        public init(tenantId: String, subscriberId: String, runId: UUID, localId: String) {
            (self.tenantId, self.subscriberId, self.runId, self.localId) = (tenantId, subscriberId, runId, localId)
        }

        /// The plan's message id (``PayloadBuilder/messageId(localId:)``): an acknowledgment
        /// naming another message does not count for this window.
        public var messageId: String { PayloadBuilder.messageId(localId: localId) }
    }

    public init(exchange: String = "", routingKey: String, messageId: String = RandomIdentifier.text(), body: Data,
                availableAt: Date? = nil, window: Window? = nil, items: Int = 1) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.messageId = messageId
        self.body = body
        self.availableAt = availableAt
        self.window = window
        self.items = items
    }
}
