import BuzzKitWire
import Foundation

/// Everything ``APNsProvider`` needs: the token-auth key, where APNs is, and how hard to try.
///
/// `buzzkit` fills it from its `Configuration` (the `BUZZKIT_APNS_*` variables); tests and
/// the bench set the fields directly (pointing `baseURL` and `extraCAFile` at the stand-in,
/// and injecting `clock`).
public struct APNsConfiguration: Sendable {
    /// Apple's production host, for devices whose environment is `.production`.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's development host, for devices whose environment is `.sandbox`.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"

    /// The `.p8` key's 10-character id (the JWT's `kid`).
    public var keyID: String
    /// The developer team id (the JWT's `iss`).
    public var teamID: String
    /// The `.p8` file's contents: a PKCS#8 PEM EC P-256 private key.
    public var privateKeyPEM: String
    /// A base URL used for both environments (`https://host[:port]`, no path), or `nil` for
    /// Apple's production or sandbox host chosen per device. Must be `https`: APNs speaks
    /// HTTP/2 over TLS only.
    public var baseURL: String?
    /// A PEM file of extra CA certificates to trust besides the system's (a stand-in, a proxy).
    public var extraCAFile: String?
    /// The most connections per APNs host (default 2). Pushes multiplex over them.
    public var maxConnections: Int = 2
    /// The most concurrent streams libcurl opens on one connection (default 1000; APNs
    /// advertises its own limit, and the lower one applies).
    public var maxConcurrentStreams: Int = 1000
    /// Retries of 429, 5xx, network failures and expired tokens.
    public var retry = RetryPolicy()
    /// How long one provider token is reused (default 50 minutes; clamped to 20…55 minutes,
    /// because APNs refuses tokens older than an hour and new ones more often than every 20).
    public var tokenRefreshInterval: TimeInterval = 50 * 60
    /// Seconds to set up a connection (TCP + TLS) before the attempt fails (default 10).
    public var connectTimeout: TimeInterval = 10
    /// Seconds for one request, connection included, before the attempt fails (default 30).
    public var requestTimeout: TimeInterval = 30
    /// Seconds an idle connection stays reusable (default 3600): APNs wants long-lived
    /// connections, and libcurl's default would drop them after 118 s.
    public var idleConnectionLifetime: TimeInterval = 3600
    /// The wall clock for provider tokens' `iat` and age (inject one in tests).
    public var clock: any Clock = SystemClock()

    /// Creates a configuration with the defaults above.
    public init(keyID: String, teamID: String, privateKeyPEM: String, baseURL: String? = nil,
                extraCAFile: String? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKeyPEM = privateKeyPEM
        self.baseURL = baseURL
        self.extraCAFile = extraCAFile
    }

    /// The base URL for a device's environment, without a trailing slash.
    public func baseURL(for environment: PushNotification.Environment) -> String {
        if let baseURL {
            var url = baseURL
            while url.hasSuffix("/") { url.removeLast() }
            return url
        }
        return environment == .production ? Self.productionURL : Self.sandboxURL
    }

    /// Checks what can be checked before connecting.
    ///
    /// - Throws: ``PushDeliveryError`` `.invalidConfiguration`.
    public func validate() throws {
        func invalid(_ message: String) -> PushDeliveryError {
            PushDeliveryError(.invalidConfiguration, context: "check the APNs configuration", message: message)
        }
        guard keyID.isPlainIdentifier else { throw invalid("key id must be letters and digits, got \"\(keyID)\"") }
        guard teamID.isPlainIdentifier else { throw invalid("team id must be letters and digits, got \"\(teamID)\"") }
        if let baseURL {
            guard let url = URL(string: baseURL), url.scheme?.lowercased() == "https", url.host != nil,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw invalid("base URL must be https://host[:port] without a path, got \"\(baseURL)\"")
            }
        }
        guard maxConnections >= 1 else { throw invalid("maxConnections must be at least 1") }
        guard connectTimeout > 0, requestTimeout > 0 else { throw invalid("timeouts must be positive") }
    }

    /// How ``APNsProvider`` retries answers that may succeed later: 429 `TooManyRequests`, 5xx
    /// (`InternalServerError`, `ServiceUnavailable`, `Shutdown`), network failures, and
    /// 403 `ExpiredProviderToken` (after signing a new token, without waiting).
    ///
    /// Waits grow exponentially with "equal jitter": before attempt *n + 1* the provider waits a
    /// random time in `[d/2, d]` with `d = min(maximumDelay, initialDelay × 2^(n−1))`, so many
    /// pushes refused together do not come back together. The wait happens on the provider's
    /// loop thread as a timer; no thread sleeps.
    public struct RetryPolicy: Sendable, Equatable {
        /// Attempts per notification, the first included (at least 1). Default 4.
        public var maximumAttempts: Int
        /// The wait before the second attempt, in seconds (before jitter). Default 0.25 s.
        public var initialDelay: TimeInterval
        /// The longest wait between attempts, in seconds (before jitter). Default 8 s.
        public var maximumDelay: TimeInterval

        /// Creates a policy.
        public init(maximumAttempts: Int = 4, initialDelay: TimeInterval = 0.25, maximumDelay: TimeInterval = 8) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.initialDelay = max(0, initialDelay)
            self.maximumDelay = max(0, maximumDelay)
        }

        /// The un-jittered wait after `attempt` failed attempts (`attempt` ≥ 1).
        public func baseDelay(afterAttempt attempt: Int) -> TimeInterval {
            let exponent = Double(min(max(attempt, 1) - 1, 30))
            return min(maximumDelay, initialDelay * pow(2, exponent))
        }

        /// The wait after `attempt` failed attempts, jittered into `[d/2, d]`.
        public func delay<Generator: RandomNumberGenerator>(afterAttempt attempt: Int,
                                                            using generator: inout Generator) -> TimeInterval {
            let base = baseDelay(afterAttempt: attempt)
            guard base > 0 else { return 0 }
            return base / 2 + Double.random(in: 0...(base / 2), using: &generator)
        }

        /// The wait after `attempt` failed attempts, jittered with the system's generator.
        public func delay(afterAttempt attempt: Int) -> TimeInterval {
            var generator = SystemRandomNumberGenerator()
            return delay(afterAttempt: attempt, using: &generator)
        }
    }
}
