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

    /// Parses `sk_<id>_<secret>` or `pk_<id>_<secret>` (hex digits); nil for anything else.
    /// Byte by byte: it runs twice on every request the API takes.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count > 5, bytes[1] == UInt8(ascii: "k"), bytes[2] == UInt8(ascii: "_") else { return nil }
        switch bytes[0] {
        case UInt8(ascii: "s"): kind = .secret
        case UInt8(ascii: "p"): kind = .publishable
        default: return nil
        }
        guard let split = bytes[3...].firstIndex(of: UInt8(ascii: "_")), split > 3, split < bytes.count - 1,
              bytes[3..<split].allSatisfy(Self.isHexDigit), bytes[(split + 1)...].allSatisfy(Self.isHexDigit) else { return nil }
        id = String(decoding: bytes[3..<split], as: UTF8.self)
        secret = String(decoding: bytes[(split + 1)...], as: UTF8.self)
    }

    /// The key in an `Authorization: Bearer <key>` header (spaces and tabs around it allowed).
    public init?(bearer header: String) {
        guard header.hasPrefix("Bearer ") else { return nil }
        let rest = header.utf8.dropFirst(7)
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) }) else { return nil }
        self.init(Substring(header.utf8[first...last]))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    public var text: String { "\(kind == .secret ? "sk" : "pk")_\(id)_\(secret)" }
    /// What is stored: the SHA-256 of the secret part.
    public var secretHash: String { Digest.sha256Hex(secret) }
}
