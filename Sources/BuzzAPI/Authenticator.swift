import BuzzServer
import Foundation
import HTTPServer

/// Turns `Authorization` and `X-BuzzKit-Subscriber-Token` headers into a ``Principal``.
/// Valid keys are cached for a short time so the hot path does not query PostgreSQL.
final class Authenticator: @unchecked Sendable {
    let directory: Directory
    let ttl: TimeInterval
    private let lock = NSLock()
    private var cache: [String: (tenant: TenantRecord, kind: APIKey.Kind, until: Date)] = [:]

    init(directory: Directory, ttl: TimeInterval = 30) {
        self.directory = directory
        self.ttl = ttl
    }

    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else {
            throw HTTPError(status: 401, code: "missing_key", message: "send Authorization: Bearer sk_… (servers) or pk_… (devices)")
        }
        guard let key = APIKey(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            throw HTTPError(status: 401, code: "invalid_key", message: "the API key is malformed; keys look like sk_<id>_<secret> or pk_<id>_<secret>")
        }
        let (tenant, kind) = try await lookup(key, now: now)
        switch kind {
        case .secret:
            return Principal(tenant: tenant, kind: .server)
        case .publishable:
            guard let token = request.header("x-buzzkit-subscriber-token") else {
                throw HTTPError(status: 401, code: "missing_subscriber_token", message: "publishable keys need X-BuzzKit-Subscriber-Token: v1.<expiresAt>.<hmac>")
            }
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "v1", let expiresAt = Int(parts[1]), parts[2].count == 64, parts[2].allSatisfy(\.isHexDigit) else {
                throw HTTPError(status: 401, code: "invalid_subscriber_token", message: "the subscriber token must look like v1.<expiresAt unix seconds>.<64 hex digits>")
            }
            guard Double(expiresAt) > now.timeIntervalSince1970 else {
                throw HTTPError(status: 401, code: "expired_subscriber_token", message: "the subscriber token expired; ask your backend for a new one")
            }
            return Principal(tenant: tenant, kind: .device(expiresAt: expiresAt, mac: String(parts[2])))
        }
    }

    private func lookup(_ key: APIKey, now: Date) async throws -> (TenantRecord, APIKey.Kind) {
        let cacheKey = key.kind.rawValue + key.id + key.secretHash
        if let hit = cached(cacheKey, now: now) { return hit }
        let directory = self.directory
        guard let found = try await Blocking.run({ try directory.authenticate(key) }) else {
            throw HTTPError(status: 401, code: "invalid_key", message: "the API key is unknown or revoked")
        }
        store(cacheKey, found, until: now.addingTimeInterval(ttl))
        return found
    }

    private func cached(_ key: String, now: Date) -> (TenantRecord, APIKey.Kind)? {
        lock.lock(); defer { lock.unlock() }
        guard let hit = cache[key], hit.until > now else { return nil }
        return (hit.tenant, hit.kind)
    }

    private func store(_ key: String, _ value: (tenant: TenantRecord, kind: APIKey.Kind), until: Date) {
        lock.lock(); defer { lock.unlock() }
        if cache.count > 10_000 { cache.removeAll() }
        cache[key] = (value.tenant, value.kind, until)
    }

    /// Forgets cached keys of a tenant (after its settings change).
    func invalidate(tenantId: String) {
        lock.lock()
        cache = cache.filter { $0.value.tenant.id != tenantId }
        lock.unlock()
    }
}

/// Runs blocking work (libpq) on a dedicated dispatch queue, off the Swift concurrency pool.
enum Blocking {
    static let queue = DispatchQueue(label: "buzzkit.api.blocking", attributes: .concurrent)

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
