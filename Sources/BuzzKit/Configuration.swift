import Foundation

/// How an SDK instance talks to BuzzKit and behaves. Everything but the API, the key and the
/// topic has a default; the subscriber is given here or later with
/// ``BuzzKitClient/login(subscriberId:subscriberToken:)``.
public struct Configuration: Sendable {
    /// The API's base URL, for example `https://api.buzzkit.example`.
    public var apiBaseURL: URL
    /// The tenant's publishable key (`pk_…`), sent as `Authorization: Bearer pk_…`.
    public var publishableKey: String
    /// The subscriber this device acts for from launch (`nil`: nobody is signed in yet, or
    /// the one remembered from the last ``BuzzKitClient/login(subscriberId:subscriberToken:)``).
    public var subscriberId: String?
    /// Where subscriber tokens come from (with ``subscriberId``).
    public var subscriberToken: SubscriberTokenProvider?
    /// The app's bundle id, registered as the device's `topic`.
    public var pushTopic: String
    /// The APNs environment registered with the device token. By default it follows the
    /// build: `sandbox` when the SDK is compiled with `DEBUG` (a development build signed with
    /// the `aps-environment` `development` entitlement), `production` otherwise (App Store,
    /// TestFlight). Set it when your signing differs.
    public var pushEnvironment: PushRegistration.Environment = PushRegistration.Environment.ofThisBuild
    /// The device token in hex, when already known; otherwise give it later with
    /// ``BuzzKitClient/setDeviceToken(_:)``.
    public var deviceToken: String?
    /// When on (the default), the SDK attaches itself to the platform's push events (the
    /// ``BuzzKitPorts/pushEvents`` source); when off, the app forwards pushes, taps and the
    /// device token itself.
    public var automaticPushHandling = true
    /// The most events posted in one request (1…1000, the API's limit).
    public var eventBatchSize = 50
    /// How long ordinary events wait for company before a flush, in seconds.
    /// Acknowledgments and events that cancelled something are flushed at once.
    public var eventFlushDelay: TimeInterval = 5
    /// The most events kept while offline; beyond it the oldest are dropped (acknowledgments
    /// last).
    public var maximumQueuedEvents = 10_000
    /// Backoff for failed flushes and registrations.
    public var retryPolicy = RetryPolicy.standard
    /// The notification center's pending limit (64 on iOS).
    public var pendingNotificationLimit = 64
    /// A plan whose acknowledgment the server has not confirmed this many seconds before it
    /// fires is withdrawn, so it is shown once (by the server's fallback) rather than twice.
    /// `nil` keeps such plans.
    public var acknowledgmentDeadline: TimeInterval? = 5
    /// The prefix of every key the SDK writes to its store.
    public var storageKeyPrefix = "buzzkit."
    /// How long the SDK may take to answer a silent push, counted from its arrival, and to
    /// finish when the app leaves the screen (iOS gives an app about 30 s and throttles apps
    /// that take longer): at most 25 s. The last fifth (at most 3 s) is kept for holding back
    /// unconfirmed plans before the suspension (see `WakeDeadline`). A push that could not be
    /// applied, the acknowledgment and the sync that do not finish in time stay persisted and
    /// go out at the next wake.
    public var backgroundBudget: TimeInterval = 20

    /// A configuration from its required parts.
    public init(apiBaseURL: URL, publishableKey: String, subscriberId: String?,
                subscriberToken: SubscriberTokenProvider?, pushTopic: String) {
        self.apiBaseURL = apiBaseURL
        self.publishableKey = publishableKey
        self.subscriberId = subscriberId
        self.subscriberToken = subscriberToken
        self.pushTopic = pushTopic
    }

    /// A configuration with nobody signed in: call ``BuzzKitClient/login(subscriberId:subscriberToken:)``
    /// once the person signs in.
    public init(apiBaseURL: URL, publishableKey: String, pushTopic: String) {
        self.init(apiBaseURL: apiBaseURL, publishableKey: publishableKey, subscriberId: nil, subscriberToken: nil, pushTopic: pushTopic)
    }

    /// Checks the values the API would refuse anyway.
    public func validate() throws {
        func fail(_ message: String) -> BuzzKitError {
            BuzzKitError(.invalidConfiguration, context: "configure", message: message)
        }
        guard publishableKey.hasPrefix("pk_") else { throw fail("publishableKey must be a publishable key (pk_…); secret keys never belong on a device") }
        if let subscriberId { try Identity.validate(subscriberId: subscriberId, context: "configure") }
        guard (subscriberId == nil) == (subscriberToken == nil) else { throw fail("subscriberId and subscriberToken come together") }
        guard backgroundBudget > 0, backgroundBudget <= 25 else { throw fail("backgroundBudget must be at most 25 s (iOS suspends a woken app after about 30 s), got \(backgroundBudget)") }
        guard !pushTopic.isEmpty else { throw fail("pushTopic must be the app's bundle id") }
        guard (1...1000).contains(eventBatchSize) else { throw fail("eventBatchSize must be 1…1000, got \(eventBatchSize)") }
        guard pendingNotificationLimit > 0 else { throw fail("pendingNotificationLimit must be positive") }
        guard maximumQueuedEvents > 0, eventFlushDelay >= 0 else { throw fail("maximumQueuedEvents must be positive and eventFlushDelay not negative") }
        if let deviceToken, !PushRegistration(token: deviceToken, topic: pushTopic).isWellFormed {
            throw fail("deviceToken must be the APNs token in hex (an even number of at least 16 hex digits)")
        }
    }

    /// The registration for `token` with this configuration's topic and environment.
    func registration(token: String) -> PushRegistration {
        PushRegistration(token: token, topic: pushTopic, environment: pushEnvironment)
    }
}
