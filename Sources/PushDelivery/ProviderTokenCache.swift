import BuzzKitWire
import Foundation

/// Keeps the current provider token, reused by every request, and decides when to sign a new one.
///
/// Apple's rules: a token older than one hour is refused (`403 ExpiredProviderToken`), and a
/// new token more often than every 20 minutes is refused (`429 TooManyProviderTokenUpdates`).
/// So a token is renewed when it is `refreshInterval` old (clamped to 20…55 minutes, default
/// 50), or at once when APNs answers `ExpiredProviderToken` for it. When many streams get that
/// answer for the same token at once, only the first renews; the others reuse the new token.
final class ProviderTokenCache: @unchecked Sendable {
    /// The shortest and longest reuse Apple allows, with five minutes' margin below the hour.
    static let refreshBounds: ClosedRange<TimeInterval> = (20 * 60)...(55 * 60)

    private let signer: ES256Signer
    private let keyID: String
    private let teamID: String
    private let refreshInterval: TimeInterval
    private let clock: any Clock
    private let lock = NSLock()
    private var token: Token?
    private var minted = 0

    /// - Parameter refreshInterval: how long a token is reused; clamped to ``refreshBounds``.
    init(signer: ES256Signer, keyID: String, teamID: String, refreshInterval: TimeInterval,
         clock: any Clock) {
        self.signer = signer
        self.keyID = keyID
        self.teamID = teamID
        self.refreshInterval = min(max(refreshInterval, Self.refreshBounds.lowerBound), Self.refreshBounds.upperBound)
        self.clock = clock
    }

    /// How many tokens were signed so far.
    var mintedCount: Int {
        lock.withLock { minted }
    }

    /// The token to send now: the cached one while it is younger than the refresh interval
    /// (and not from the future by more than a minute, as after a clock jump), else a new one.
    func current() throws -> Token {
        try lock.withLock {
            let now = clock.now
            if let token {
                let age = now.timeIntervalSince(token.issuedAt)
                if age < refreshInterval && age > -60 { return token }
            }
            return try mintLocked(now: now)
        }
    }

    /// APNs answered `ExpiredProviderToken` for `stale`: signs a new token unless another
    /// request already replaced it, and returns the token to retry with.
    func renew(replacing stale: Token) throws -> Token {
        try lock.withLock {
            if let token, token != stale { return token }
            return try mintLocked(now: clock.now)
        }
    }

    private func mintLocked(now: Date) throws -> Token {
        let fresh = try Token.make(signer: signer, keyID: keyID, teamID: teamID, now: now)
        token = fresh
        minted += 1
        return fresh
    }

    /// An APNs provider authentication token: a JWT signed with ES256.
    ///
    /// Header `{"alg":"ES256","kid":"<key id>"}`, claims `{"iss":"<team id>","iat":<epoch s>}`,
    /// each base64url-encoded without padding, joined by `.`, then the base64url of the 64-byte
    /// `R‖S` signature over `header.claims`. APNs rejects tokens older than one hour
    /// (`ExpiredProviderToken`) and too-frequent new ones (`TooManyProviderTokenUpdates`), so a
    /// token is reused for many requests; the cache decides when to make a new one.
    struct Token: Sendable, Equatable {
        /// The compact JWT, as sent in `authorization: bearer <jwt>`.
        let jwt: String
        /// The `iat` claim (whole seconds).
        let issuedAt: Date

        /// The `authorization` header's value.
        var bearer: String { "bearer " + jwt }

        /// Signs a new token.
        ///
        /// - Parameters:
        ///   - keyID: the `kid` header: the 10-character id of the `.p8` key.
        ///   - teamID: the `iss` claim: the developer team id.
        ///   - now: the issue time; it is truncated to whole seconds.
        static func make(signer: ES256Signer, keyID: String, teamID: String, now: Date) throws -> Token {
            guard keyID.isPlainIdentifier, teamID.isPlainIdentifier else {
                throw PushDeliveryError(.invalidConfiguration, context: "make the APNs provider token",
                                        message: "key id and team id must be letters, digits, '-' or '_'")
            }
            let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
            let header = Data("{\"alg\":\"ES256\",\"kid\":\"\(keyID)\"}".utf8).base64URLEncodedString
            let claims = Data("{\"iss\":\"\(teamID)\",\"iat\":\(seconds)}".utf8).base64URLEncodedString
            let signingInput = header + "." + claims
            let signature = try signer.sign(Data(signingInput.utf8))
            return Token(jwt: signingInput + "." + signature.base64URLEncodedString,
                                 issuedAt: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
    }
}
