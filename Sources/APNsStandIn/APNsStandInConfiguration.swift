import Foundation

/// How an ``APNsStandIn`` listens, whom it trusts, and how it misbehaves on purpose.
public struct APNsStandInConfiguration: Sendable {
    /// A provider key the stand-in accepts: JWTs whose `kid` names it must verify against
    /// `publicKeyPEM`, and their `iss` must equal `teamID` (when set).
    public struct VerificationKey: Sendable, Equatable {
        /// The team the key belongs to, or `nil` to accept any `iss`.
        public var teamID: String?
        /// The key's public half (`-----BEGIN PUBLIC KEY-----`, EC P-256).
        public var publicKeyPEM: String

        /// Creates a verification key.
        public init(teamID: String?, publicKeyPEM: String) {
            self.teamID = teamID
            self.publicKeyPEM = publicKeyPEM
        }
    }

    /// The address to listen on (default `127.0.0.1`).
    public var host = "127.0.0.1"
    /// The TCP port; 0 picks a free one (see ``APNsStandIn/port``).
    public var port: UInt16 = 0
    /// The TLS identity (see ``StandInCredentials/generate(hosts:days:)``).
    public var credentials: StandInCredentials
    /// Accepted provider keys by `kid`.
    public var keys: [String: VerificationKey]
    /// Topics (bundle ids) pushes may name, or `nil` for any (else 400 `TopicDisallowed`).
    public var allowedTopics: Set<String>?
    /// The oldest provider token accepted, in seconds (Apple: one hour).
    public var tokenMaxAge: TimeInterval = 3600
    /// How far a token's `iat` may lie in the future of the stand-in's clock (a clock skew
    /// allowance); later ones get 403 `InvalidProviderToken`.
    public var tokenFutureTolerance: TimeInterval = 600
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised to clients (APNs: up to 1000).
    public var maxConcurrentStreams = 1000
    /// The most connections open at once; more are closed at once.
    public var maxConnections = 256
    /// Whether accepted pushes are kept for ``APNsStandIn/pushes`` (turn off for long benches;
    /// ``APNsStandIn/onPush`` is called either way).
    public var recordPushes = true
    /// Failures to inject (changeable later with ``APNsStandIn/failures``).
    public var failures = APNsFailurePlan()
    /// The stand-in's wall clock, for token ages and 410 timestamps (inject one in tests).
    public var clock: @Sendable () -> Date = { Date() }

    /// Creates a configuration accepting `keys`.
    public init(credentials: StandInCredentials, keys: [String: VerificationKey], port: UInt16 = 0) {
        self.credentials = credentials
        self.keys = keys
        self.port = port
    }

    /// Creates a configuration accepting the given provider key pairs.
    public init(credentials: StandInCredentials, providerKeys: [ProviderKeyPair], port: UInt16 = 0) {
        var keys: [String: VerificationKey] = [:]
        for pair in providerKeys { keys[pair.keyID] = pair.verificationKey }
        self.init(credentials: credentials, keys: keys, port: port)
    }
}
