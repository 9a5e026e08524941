import Foundation

/// The real ``PushProvider``: Apple's HTTP/2 provider API with token (JWT) authentication.
///
/// - **Transport.** libcurl's multi interface on one dedicated thread (``CurlMultiLoop``):
///   HTTP/2 over TLS, requests multiplexed as concurrent streams over at most
///   ``APNsConfiguration/maxConnections`` long-lived connections per host. Nothing runs on
///   the Swift concurrency pool.
/// - **Auth.** An ES256 JWT (`kid`, `iss`, `iat`) signed with the team's `.p8` key through
///   OpenSSL, reused and renewed every ``APNsConfiguration/tokenRefreshInterval`` (20…55 min).
/// - **Answers.** Handled as Apple documents them (see `APNsDecision`): 200 → delivered;
///   410 / 400 `BadDeviceToken` → device unregistered; 403 `ExpiredProviderToken` → new
///   token and retry; 429, 5xx and network failures → bounded retries with exponential
///   backoff and jitter; 413 and other 4xx → rejected at once.
/// - **Local checks.** ``PushNotification/localRefusal`` (payload over 4096 bytes, …) is
///   applied before anything is sent.
///
/// ```swift
/// let provider = try APNsProvider(configuration: APNsConfiguration(keyID: keyId, teamID: teamId, privateKeyPEM: pem))
/// let results = provider.send(notifications)   // from a worker thread
/// ```
public final class APNsProvider: PushProvider, @unchecked Sendable {
    /// The configuration the provider was made with.
    public let configuration: APNsConfiguration
    let loop: CurlMultiLoop
    let tokens: ProviderTokenCache
    private let lock = NSLock()
    private var retryCount = 0
    private var renewalCount = 0

    /// Loads the key, starts the libcurl thread. Connections open with the first push.
    ///
    /// - Throws: ``PushDeliveryError`` for a bad configuration, key, CA file, or libcurl failure.
    public init(configuration: APNsConfiguration) throws {
        try configuration.validate()
        let signer = try ES256Signer(privateKeyPEM: configuration.privateKeyPEM)
        self.configuration = configuration
        tokens = ProviderTokenCache(signer: signer, keyID: configuration.keyID, teamID: configuration.teamID,
                                    refreshInterval: configuration.tokenRefreshInterval, clock: configuration.clock)
        // Sign once now, so a key that cannot sign fails here rather than on every push.
        _ = try tokens.current()
        var settings = CurlMultiLoop.Settings()
        settings.maxConnectionsPerHost = configuration.maxConnections
        settings.maxConcurrentStreams = configuration.maxConcurrentStreams
        settings.connectTimeout = configuration.connectTimeout
        settings.requestTimeout = configuration.requestTimeout
        settings.idleConnectionLifetime = configuration.idleConnectionLifetime
        settings.trustedCertificates = try configuration.trustedCertificates()
        loop = try CurlMultiLoop(settings: settings)
    }

    deinit {
        loop.close()
    }

    /// Sends the batch concurrently and blocks until every push has its final result.
    /// Thread-safe; call it from worker threads, not from async code.
    public func send(_ batch: [PushNotification]) -> [PushResult] {
        guard !batch.isEmpty else { return [] }
        let results = APNsDelivery.Batch(count: batch.count)
        for (index, notification) in batch.enumerated() {
            let delivery = APNsDelivery(notification: notification, batch: results, index: index)
            if let refusal = notification.localRefusal {
                delivery.finish(refusal)
            } else {
                attempt(delivery, after: 0)
            }
        }
        return results.wait()
    }

    /// Counters since the provider started.
    public var statistics: Statistics {
        let (retries, renewals) = lock.withLock { (retryCount, renewalCount) }
        return Statistics(requests: loop.requestsFinished, retries: retries,
                                      tokensSigned: tokens.mintedCount, tokenRenewals: renewals,
                                      connectionsOpened: loop.connectionsOpened, loopCPUSeconds: loop.cpuTime)
    }

    /// Closes the connections and stops the libcurl thread; pushes still in flight fail with
    /// reason `closed`, later sends fail at once. Also done when the provider is released.
    public func close() {
        loop.close()
    }

    func countRetry(renewal: Bool) {
        lock.withLock {
            retryCount += 1
            if renewal { renewalCount += 1 }
        }
    }

    /// Counters of an ``APNsProvider`` since it started, for metrics, tests and the bench.
    public struct Statistics: Sendable, Equatable {
        /// HTTP requests finished (answered or failed), retries included.
        public var requests: Int
        /// Attempts made again after a 429, 5xx, network failure or expired token.
        public var retries: Int
        /// Provider tokens signed (the first one included).
        public var tokensSigned: Int
        /// Attempts retried with a new token because APNs answered `ExpiredProviderToken`
        /// (many streams refused together share one new token, see `tokensSigned`).
        public var tokenRenewals: Int
        /// TCP+TLS connections opened (libcurl's `CURLINFO_NUM_CONNECTS`, summed). At steady
        /// state this stops growing: connections are reused.
        public var connectionsOpened: Int
        /// CPU seconds used by the provider's libcurl thread (its `CLOCK_THREAD_CPUTIME_ID`).
        /// Threads that call `send` spend a little more (building requests, waiting).
        public var loopCPUSeconds: Double

        /// Creates statistics.
        public init(requests: Int = 0, retries: Int = 0, tokensSigned: Int = 0, tokenRenewals: Int = 0,
                    connectionsOpened: Int = 0, loopCPUSeconds: Double = 0) {
            self.requests = requests
            self.retries = retries
            self.tokensSigned = tokensSigned
            self.tokenRenewals = tokenRenewals
            self.connectionsOpened = connectionsOpened
            self.loopCPUSeconds = loopCPUSeconds
        }
    }
}
