import BuzzCrypto

/// Subscriber tokens as the tenant's backend makes them (docs/contract.md §4).
enum TenantToken {
    static func make(signingSecret: String, subscriberId: String, expiresAt: Int) -> String {
        "v1.\(expiresAt).\(Digest.hmacSHA256Hex(key: signingSecret, message: "\(subscriberId).\(expiresAt)"))"
    }
}
