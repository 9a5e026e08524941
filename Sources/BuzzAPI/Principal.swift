import BuzzCrypto
import BuzzServer
import Foundation
import HTTPServer

/// Who is calling: a tenant's server (secret key) or one of its devices (publishable key plus
/// a subscriber token).
struct Principal: Sendable {
    enum Kind: Sendable {
        case server
        /// `v1.<expiresAt>.<mac>`: checked against the subscriber a request acts for.
        case device(expiresAt: Int, mac: String)
    }

    let tenant: TenantRecord
    let kind: Kind
    /// Where a device's token is remembered once its HMAC checks out (its rate limit is then
    /// its own, see ``VerifiedTokens``).
    var verified: VerifiedTokens? = nil

    var isServer: Bool {
        if case .server = kind { return true }
        return false
    }

    /// Servers only.
    func requireServer() throws {
        guard isServer else {
            throw HTTPError(status: 403, code: "forbidden", message: "this route needs the tenant's secret key (sk_…); publishable keys may only send events, register or remove devices and sync plans")
        }
    }

    /// Servers may act for any subscriber; a device only for the subscriber its token was
    /// made for (HMAC-SHA256 of "<subscriberId>.<expiresAt>" with the signing secret).
    func authorize(subscriberId: String, now: Date) throws {
        guard case .device(let expiresAt, let mac) = kind else { return }
        let given = mac.lowercased()
        let valid = tenant.signingSecrets(at: now).contains {
            Digest.constantTimeEqual(Digest.hmacSHA256Hex(key: $0, message: "\(subscriberId).\(expiresAt)"), given)
        }
        guard valid else {
            throw HTTPError(status: 401, code: "invalid_subscriber_token", message: "the subscriber token was not made for subscriber \(subscriberId) by this tenant")
        }
        guard Double(expiresAt) > now.timeIntervalSince1970 else {
            throw HTTPError(status: 401, code: "expired_subscriber_token", message: "the subscriber token expired; ask your backend for a new one")
        }
        verified?.remember(tenantId: tenant.id, mac: mac, expiresAt: expiresAt, now: now)
    }
}
