import BuzzCrypto
import BuzzServerCore
import Foundation

/// The keys printed once by `buzzkit tenant create`.
public struct TenantCredentials: Sendable, Codable, Equatable {
    public var tenantId: String
    /// `sk_…`: servers; may call every route of the tenant.
    public var secretKey: String
    /// `pk_…`: devices, together with a subscriber token.
    public var publishableKey: String
    /// Signs subscriber tokens: `v1.<expiresAt>.<hex HMAC-SHA256(signingSecret, "<subscriberId>.<expiresAt>")>`.
    public var signingSecret: String

    public init(tenantId: String, secretKey: String, publishableKey: String, signingSecret: String) {
        self.tenantId = tenantId
        self.secretKey = secretKey
        self.publishableKey = publishableKey
        self.signingSecret = signingSecret
    }

    /// A subscriber token as a tenant's backend makes it (docs/contract.md §4).
    public static func subscriberToken(signingSecret: String, subscriberId: String, expiresAt: Int) -> String {
        "v1.\(expiresAt).\(Digest.hmacSHA256Hex(key: signingSecret, message: "\(subscriberId).\(expiresAt)"))"
    }
}

/// A parsed API key: `<kind>_<id>_<secret>`.
public struct APIKey: Sendable, Equatable {
    public enum Kind: String, Sendable { case secret, publishable }
    public var kind: Kind
    public var id: String
    public var secret: String

    /// Generates a fresh key.
    public static func generate(_ kind: Kind) -> APIKey {
        APIKey(kind: kind, id: Digest.randomHex(byteCount: 6), secret: Digest.randomHex(byteCount: 24))
    }

    public init(kind: Kind, id: String, secret: String) {
        self.kind = kind
        self.id = id
        self.secret = secret
    }

    /// Parses `sk_<id>_<secret>` or `pk_<id>_<secret>`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty,
              parts[1].allSatisfy(\.isHexDigit), parts[2].allSatisfy(\.isHexDigit) else { return nil }
        switch parts[0] {
        case "sk": kind = .secret
        case "pk": kind = .publishable
        default: return nil
        }
        id = String(parts[1])
        secret = String(parts[2])
    }

    public var text: String { "\(kind == .secret ? "sk" : "pk")_\(id)_\(secret)" }
    /// What is stored: the SHA-256 of the secret part.
    public var secretHash: String { Digest.sha256Hex(secret) }
}
