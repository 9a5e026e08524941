/// The single error type of the SDK: a machine-readable ``code``, the operation it happened
/// in (``context``) and a sentence for people (``message``).
public struct BuzzKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text, for example `network_unavailable`.
        public var rawValue: String

        /// A code from its text.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's text.
        public var description: String { rawValue }

        /// The SDK has not been configured (``BuzzKit/configure(_:ports:)``).
        public static let notConfigured = Code(rawValue: "not_configured")
        /// Nobody is signed in: call `login(subscriberId:subscriberToken:)` first.
        public static let notSignedIn = Code(rawValue: "not_signed_in")
        /// A configuration value is unusable (for example a malformed push token).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// A push payload could not be read.
        public static let invalidPayload = Code(rawValue: "invalid_payload")
        /// An event name or its properties are not accepted by the API.
        public static let invalidEvent = Code(rawValue: "invalid_event")
        /// The request was certainly not sent (no connection, host unreachable).
        public static let networkUnavailable = Code(rawValue: "network_unavailable")
        /// The request may or may not have reached the server (timeout, connection lost).
        public static let networkFailure = Code(rawValue: "network_failure")
        /// The server answered with an error status.
        public static let httpStatus = Code(rawValue: "http_status")
        /// The app's subscriber-token provider failed.
        public static let subscriberToken = Code(rawValue: "subscriber_token")
        /// Reading or writing persisted state failed.
        public static let storage = Code(rawValue: "storage")
        /// Persisted state exists but cannot be read yet (on iOS: the phone has not been
        /// unlocked since it restarted). Nothing is saved over it until it can be.
        public static let storageUnreadable = Code(rawValue: "storage_unreadable")
        /// The event queue was full, so its oldest events were dropped.
        public static let queueFull = Code(rawValue: "queue_full")
        /// The notification center refused a request.
        public static let notificationCenter = Code(rawValue: "notification_center")
    }

    /// What went wrong.
    public var code: Code
    /// Where it went wrong, for example `POST /v1/events` or `plan run-1/nudge`.
    public var context: String
    /// A sentence for people.
    public var message: String

    /// An error from its parts.
    public init(_ code: Code, context: String, message: String) {
        self.code = code
        self.context = context
        self.message = message
    }

    /// `code (context): message`.
    public var description: String {
        "\(code.rawValue) (\(context)): \(message)"
    }
}
