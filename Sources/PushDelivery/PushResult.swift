import Foundation

/// The final answer for one ``PushNotification``: everything a deliveries row needs, and
/// whether the device must be marked inactive.
public struct PushResult: Sendable, Hashable {
    /// How a push ended, after the provider's bounded retries.
    public enum Outcome: Sendable, Hashable {
        /// APNs accepted the push (HTTP 200). Keep `apnsId` in the delivery record.
        case delivered(apnsId: UUID)
        /// The device token is dead: 410 `Unregistered` (with the moment APNs learnt it,
        /// when it says) or 400 `BadDeviceToken`. Mark the device inactive and never send
        /// to it again.
        case deviceUnregistered(reason: String, since: Date?)
        /// Permanently refused for this notification, without retry: 413 `PayloadTooLarge`,
        /// other 4xx answers about the request, or a local check before sending
        /// (`status` is `nil` then).
        case rejected(status: Int?, reason: String)
        /// Still failing after the bounded retries (429, 5xx, network, provider token), or the
        /// provider was closed. `status` is `nil` when no HTTP answer came.
        case failed(status: Int?, reason: String)
    }

    /// How the push ended.
    public var outcome: Outcome
    /// The notification's `apns-id` (the one sent, which APNs echoes), or `nil` when nothing
    /// was sent.
    public var apnsId: UUID?
    /// The HTTP status of the last answer, or `nil` when no answer came (refused locally,
    /// network failure).
    public var status: Int?
    /// How many HTTP requests were made for this notification (0 when refused locally).
    public var attempts: Int
    /// For a failed push, the wait APNs asked for in `Retry-After` (seconds), when it asked
    /// for longer than the provider waits between its own attempts.
    public var retryAfter: TimeInterval?

    /// Creates a result.
    public init(outcome: Outcome, apnsId: UUID?, status: Int?, attempts: Int, retryAfter: TimeInterval? = nil) {
        self.outcome = outcome
        self.apnsId = apnsId
        self.status = status
        self.attempts = attempts
        self.retryAfter = retryAfter
    }

    /// True when APNs accepted the push.
    public var isDelivered: Bool {
        if case .delivered = outcome { return true }
        return false
    }

    /// True when the device must be marked inactive (410 or 400 `BadDeviceToken`).
    public var deactivatesDevice: Bool {
        if case .deviceUnregistered = outcome { return true }
        return false
    }

    /// Apple's reason (`Unregistered`, `PayloadTooLarge`, `TooManyRequests`, …), or `nil`
    /// for a delivered push.
    public var reason: String? {
        switch outcome {
        case .delivered: return nil
        case .deviceUnregistered(let reason, _), .rejected(_, let reason), .failed(_, let reason):
            return reason
        }
    }

    /// A short word for logs and the deliveries table: `delivered`, `unregistered`,
    /// `rejected` or `failed`.
    public var outcomeName: String {
        switch outcome {
        case .delivered: return "delivered"
        case .deviceUnregistered: return "unregistered"
        case .rejected: return "rejected"
        case .failed: return "failed"
        }
    }
}
