import Foundation

extension RunSummary {
    /// One push sent for a step: `{tokenSuffix, kind: plan|cancel|fallback|alert, status,
    /// apnsId, at, reason}`. `status` is `sent`, `failed`, `rejected`, `unregistered` or
    /// `pending` (being sent); `tokenSuffix` is the device token's last 8 characters (empty
    /// once the device was erased).
    public struct Delivery: Sendable, Hashable, Codable {
        public var tokenSuffix: String
        public var kind: String
        public var status: String
        @WireForm.OrNull public var apnsId: String?
        @WireForm.Instant public var at: Date
        @WireForm.OrNull public var reason: String?

        public init(tokenSuffix: String, kind: String, status: String, apnsId: String?, at: Date, reason: String?) {
            self.tokenSuffix = tokenSuffix
            self.kind = kind
            self.status = status
            self.apnsId = apnsId
            self.at = at
            self.reason = reason
        }
    }

    /// The run's `opened`: `{messageId, at}`, the first open of one of its notifications.
    public struct Opened: Sendable, Hashable, Codable {
        public var messageId: String
        @WireForm.Instant public var at: Date

        public init(messageId: String, at: Date) {
            self.messageId = messageId
            self.at = at
        }
    }
}
