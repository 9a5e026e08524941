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
        public var apnsId: String?
        public var at: Date
        public var reason: String?

        public init(tokenSuffix: String, kind: String, status: String, apnsId: String?, at: Date, reason: String?) {
            self.tokenSuffix = tokenSuffix
            self.kind = kind
            self.status = status
            self.apnsId = apnsId
            self.at = at
            self.reason = reason
        }

        private enum CodingKeys: String, CodingKey { case tokenSuffix, kind, status, apnsId, at, reason }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tokenSuffix = try container.decode(String.self, forKey: .tokenSuffix)
            kind = try container.decode(String.self, forKey: .kind)
            status = try container.decode(String.self, forKey: .status)
            apnsId = try container.decodeIfPresent(String.self, forKey: .apnsId)
            at = try container.decodeInstant(forKey: .at)
            reason = try container.decodeIfPresent(String.self, forKey: .reason)
        }

        /// Encodes the wire form with explicit `null`s.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tokenSuffix, forKey: .tokenSuffix)
            try container.encode(kind, forKey: .kind)
            try container.encode(status, forKey: .status)
            try container.encodeOrNull(apnsId, forKey: .apnsId)
            try container.encodeInstant(at, forKey: .at)
            try container.encodeOrNull(reason, forKey: .reason)
        }
    }

    /// The run's `opened`: `{messageId, at}`, the first open of one of its notifications.
    public struct Opened: Sendable, Hashable, Codable {
        public var messageId: String
        public var at: Date

        public init(messageId: String, at: Date) {
            self.messageId = messageId
            self.at = at
        }

        private enum CodingKeys: String, CodingKey { case messageId, at }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            messageId = try container.decode(String.self, forKey: .messageId)
            at = try container.decodeInstant(forKey: .at)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(messageId, forKey: .messageId)
            try container.encodeInstant(at, forKey: .at)
        }
    }
}
