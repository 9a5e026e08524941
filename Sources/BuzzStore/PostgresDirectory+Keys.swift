import BuzzCrypto
import BuzzServerCore
import Foundation
import PostgresClient

extension PostgresDirectory {
    /// The PostgreSQL `NOTIFY` channel that carries the id of a tenant whose keys, signing
    /// secret or settings just changed; API processes drop what they cached of it.
    public static let tenantChannel = "buzzkit_tenants"

    /// Creates another key of `kind` for the tenant and returns it (shown once). The old keys
    /// keep working until they are revoked, so clients can move over without downtime.
    public func createKey(tenantId: String, kind: APIKey.Kind) throws -> String {
        let key = APIKey.generate(kind)
        try pool.withConnection { db in
            guard try !db.query("SELECT 1 FROM tenants WHERE id = \(tenantId)").isEmpty else {
                throw ServerError(.notFound, "there is no tenant \(tenantId)", field: "tenant")
            }
            try db.execute("INSERT INTO tenant_keys (id, tenant_id, kind, secret_hash) VALUES (\(key.id), \(tenantId), \(kind.rawValue), \(key.secretHash))")
        }
        return key.text
    }

    /// Revokes a key by its id (the part between the underscores). Every API process is told
    /// on ``PostgresDirectory/tenantChannel`` and refuses it from then on.
    public func revokeKey(tenantId: String, keyId: String) throws {
        try pool.withConnection { db in
            let changed = try db.execute("UPDATE tenant_keys SET revoked_at = now() WHERE tenant_id = \(tenantId) AND id = \(keyId) AND revoked_at IS NULL")
            if changed == 0 {
                throw ServerError(.notFound, "tenant \(tenantId) has no unrevoked key \(keyId)", field: "key")
            }
            try db.notify(Self.tenantChannel, payload: tenantId)
        }
    }

    /// The tenant's keys, newest first.
    public func keys(tenantId: String) throws -> [KeyListing] {
        try pool.withConnection { db in
            try db.query("SELECT id, kind, created_at, revoked_at FROM tenant_keys WHERE tenant_id = \(tenantId) ORDER BY created_at DESC, id").map {
                KeyListing(id: try $0.decode("id"), kind: try $0.decode("kind"), createdAt: try $0.decode("created_at"),
                           revokedAt: try $0.decode("revoked_at", as: Date?.self))
            }
        }
    }

    /// Replaces the tenant's signing secret and returns the new one (shown once). The old one
    /// still verifies subscriber tokens for `grace` seconds, while the backend switches.
    public func rotateSigningSecret(tenantId: String, grace: TimeInterval) throws -> String {
        let secret = "ss_" + Digest.randomHex(byteCount: 32)
        let until = Date().addingTimeInterval(max(0, grace))
        try pool.withConnection { db in
            let changed = try db.execute("""
                UPDATE tenants SET previous_signing_secret = signing_secret, previous_signing_secret_until = \(until), signing_secret = \(secret)
                WHERE id = \(tenantId)
                """)
            if changed == 0 { throw ServerError(.notFound, "there is no tenant \(tenantId)", field: "tenant") }
            try db.notify(Self.tenantChannel, payload: tenantId)
        }
        return secret
    }
}
