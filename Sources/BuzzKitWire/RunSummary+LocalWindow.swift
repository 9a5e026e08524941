import Foundation

extension RunSummary {
    /// A local send's `local` member in the run summary:
    /// `{"localId", "moment", "fireAt", "shiftedByQuietHours", "planSentTo", "acknowledged",
    /// "acknowledgedAt", "fallback"}`. Every key is always present; `acknowledgedAt` and
    /// `fallback` are `null` until they happen.
    public struct LocalWindow: Sendable, Hashable, Codable {
        /// `<runId>/<stepName>`.
        public var localId: String
        /// The instant the notification is due (after any quiet-hours shift).
        @WireForm.Instant public var moment: Date
        /// The wall clock handed to devices.
        public var fireAt: FireAt
        /// Whether quiet hours moved the moment.
        public var shiftedByQuietHours: Bool
        /// How many devices the plan was handed to.
        public var planSentTo: Int
        /// Whether a device of the subscriber acknowledged the plan.
        public var acknowledged: Bool
        /// When the first acknowledgment arrived.
        @WireForm.InstantOrNull public var acknowledgedAt: Date?
        /// The fallback decision, once the moment has been reached.
        @WireForm.OrNull public var fallback: Fallback?

        /// A summary from its parts.
        public init(localId: String, moment: Date, fireAt: FireAt, shiftedByQuietHours: Bool,
                    planSentTo: Int = 0, acknowledged: Bool = false, acknowledgedAt: Date? = nil,
                    fallback: Fallback? = nil) {
            self.localId = localId
            self.moment = moment
            self.fireAt = fireAt
            self.shiftedByQuietHours = shiftedByQuietHours
            self.planSentTo = planSentTo
            self.acknowledged = acknowledged
            self.acknowledgedAt = acknowledgedAt
            self.fallback = fallback
        }

        /// The local window's fallback decision, made at the moment:
        /// `{"sent", "idempotencyKey", "reason"}`.
        public struct Fallback: Sendable, Hashable, Codable {
            /// Whether the fallback push was sent.
            public var sent: Bool
            /// The fallback's idempotency key (also its `apns-collapse-id`).
            public var idempotencyKey: String
            /// Why it was or was not sent, for example "no device confirmed the schedule".
            public var reason: String

            /// A decision from its parts.
            public init(sent: Bool, idempotencyKey: String, reason: String) {
                self.sent = sent
                self.idempotencyKey = idempotencyKey
                self.reason = reason
            }

            /// The contract's reason for a sent fallback.
            public static let noConfirmation = "no device confirmed the schedule"
            /// Sent: devices acknowledged the plan, and each of them released it since
            /// (`$local.released`: the 64-pending limit pushed it out, or it was removed).
            public static let releasedByEveryDevice = "released by every device that acknowledged it"
            /// Sent: no device that acknowledged the plan still holds it; some released it, the
            /// others were logged out or refused by APNs (or every one of them was).
            public static let noAcknowledgingDeviceHoldsIt = "no device that acknowledged it still holds it (released, logged out or unregistered)"
            /// Sent at once as an ordinary push: the window's moment had passed when its wait began.
            public static let momentPassed = "the moment had passed when the wait began"
            /// Not sent: a device acknowledged the plan.
            public static let confirmed = "a device confirmed the schedule"
            /// Not sent: dry runs never send.
            public static let dryRun = "dry run: nothing is sent"
            /// Not sent: the run has no subscriber.
            public static let noSubscriber = "the run has no subscriber"
        }
    }
}
