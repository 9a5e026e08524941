import Foundation

/// A local stand-in for Apple's APNs provider API: an HTTP/2 server over TLS (libnghttp2 +
/// OpenSSL, ALPN `h2`) that checks what Apple checks and answers as Apple does.
///
/// - **Checks** (see `APNsRequestValidator`): `POST /3/device/<64 hex>`; `authorization:
///   bearer <JWT>` with an ES256 signature that verifies against the key registered for its
///   `kid`, issued by that key's team, at most an hour old; `apns-topic`, `apns-push-type`,
///   priority consistent with the type (`background` → 5); expiration, collapse id and
///   `apns-id` formats; a JSON body of at most 4096 bytes.
/// - **Answers**: 200 with `apns-id`, or Apple's status and `{"reason": …}`.
/// - **Failure injection** (``failures``): by token (400 `BadDeviceToken`, 410 `Unregistered`,
///   429, 500, 503; always or for the first k attempts) and by rate, plus added latency.
/// - **Recording**: every accepted push is kept (``pushes``) and handed to ``onPush``, which
///   the device simulator uses to deliver silent pushes to simulated phones.
/// - **Threads**: one accept thread, and one thread per connection (APNs clients keep one or
///   two long-lived connections). Garbage, wrong protocols and resets end only the connection
///   they came on.
///
/// ```swift
/// let credentials = try StandInCredentials.generate()
/// let key = try ProviderKeyPair.generate()
/// let standIn = try APNsStandIn(configuration: .init(credentials: credentials, providerKeys: [key]))
/// try standIn.start()          // then point the provider at standIn.baseURL, trusting the CA
/// ```
public final class APNsStandIn: @unchecked Sendable {
    /// The configuration it was made with (``failures`` may change later).
    public let configuration: APNsStandInConfiguration
    let tls: TLSServerContext
    let validator: APNsRequestValidator
    let lock = NSLock()
    let connectionThreads = DispatchGroup()
    let acceptStopped = DispatchSemaphore(value: 0)
    // Guarded by `lock`.
    var listenFD: Int32 = -1
    var boundPort: UInt16 = 0
    var running = false
    var stopping = false
    var connections: [Int: StandInConnection] = [:]
    var connectionCount = 0
    var stats = Statistics()
    var recorded: [RecordedPush] = []
    var plan: APNsFailurePlan
    var failuresSoFar: [String: Int] = [:]
    var pushHandler: (@Sendable (RecordedPush) -> Void)?

    /// Loads the TLS identity and the provider keys. Nothing listens until ``start()``.
    ///
    /// - Throws: ``APNsStandInError`` for unreadable keys or certificates.
    public init(configuration: APNsStandInConfiguration) throws {
        self.configuration = configuration
        tls = try TLSServerContext(credentials: configuration.credentials)
        validator = APNsRequestValidator(verifier: try ProviderTokenVerifier(keys: configuration.keys),
                                         allowedTopics: configuration.allowedTopics,
                                         tokenMaxAge: configuration.tokenMaxAge,
                                         tokenFutureTolerance: configuration.tokenFutureTolerance)
        plan = configuration.failures
    }

    deinit {
        stop()
    }

    /// The port it listens on (the chosen one when configured with 0), or 0 before ``start()``.
    public var port: UInt16 {
        lock.withLock { boundPort }
    }

    /// The base URL for a provider: `https://127.0.0.1:<port>` (the certificate names it).
    public var baseURL: String {
        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        return "https://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Called on a connection thread for every accepted push, after it is recorded and
    /// before the 200 goes out. Keep it quick; hand work to another thread.
    public var onPush: (@Sendable (RecordedPush) -> Void)? {
        get { lock.withLock { pushHandler } }
        set { lock.withLock { pushHandler = newValue } }
    }

    /// The failures injected from now on.
    public var failures: APNsFailurePlan {
        get { lock.withLock { plan } }
        set { lock.withLock { plan = newValue; failuresSoFar.removeAll() } }
    }

    /// Every accepted push so far, oldest first (empty when recording is off).
    public var pushes: [RecordedPush] {
        lock.withLock { recorded }
    }

    /// Forgets the recorded pushes.
    public func removeAllPushes() {
        lock.withLock { recorded.removeAll() }
    }

    /// Counters since start.
    public var statistics: Statistics {
        lock.withLock {
            var snapshot = stats
            snapshot.openConnections = connections.count
            return snapshot
        }
    }

    /// Waits until at least `count` pushes were recorded or `timeout` passed.
    public func waitForPushes(count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lock.withLock({ recorded.count }) >= count { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return lock.withLock { recorded.count } >= count
    }

    var isStopping: Bool {
        lock.withLock { stopping }
    }

    /// Counters of an ``APNsStandIn`` since it started.
    public struct Statistics: Sendable, Equatable {
        /// TCP connections accepted.
        public var tcpConnections = 0
        /// Connections that completed the TLS handshake with ALPN `h2`: the number to watch for
        /// connection churn.
        public var tlsConnections = 0
        /// Connections that failed before HTTP/2 (garbage, no `h2` in ALPN, handshake timeout).
        public var failedHandshakes = 0
        /// Connections open now.
        public var openConnections = 0
        /// HTTP/2 requests answered (every status).
        public var requests = 0
        /// Requests answered 200.
        public var accepted = 0
        /// Answers by HTTP status.
        public var answersByStatus: [Int: Int] = [:]
        /// Answers by APNs reason (errors only).
        public var answersByReason: [String: Int] = [:]

        /// Creates empty statistics.
        public init() {}

        /// One line for logs.
        public var summary: String {
            let statuses = answersByStatus.keys.sorted().map { "\($0):\(answersByStatus[$0]!)" }.joined(separator: ",")
            return "tcp=\(tcpConnections) tls=\(tlsConnections) failedHandshakes=\(failedHandshakes) "
                + "open=\(openConnections) requests=\(requests) accepted=\(accepted) statuses=[\(statuses)]"
        }
    }
}
