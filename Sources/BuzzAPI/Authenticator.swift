import BuzzServer
import Foundation
import HTTPServer

/// Turns `Authorization` and `X-BuzzKit-Subscriber-Token` headers into a ``Principal``, and
/// applies the request limits (``RateLimits``).
///
/// Valid keys are cached for a short time so the hot path does not query PostgreSQL (and
/// dropped at once when ``TenantChangeListener`` hears the tenant changed). A key
/// PostgreSQL does not know is remembered for a minute, and lookups of keys not cached draw on
/// one budget for all callers, so a flood of made-up keys costs a bounded number of queries
/// (a key that was valid before is looked up again outside that budget).
final class Authenticator: @unchecked Sendable {
    let directory: any Directory
    let ttl: TimeInterval
    let limits: RateLimits
    /// How long an unknown key is answered 401 from memory.
    let unknownTTL: TimeInterval = 60
    private let keys = ExpiringCache<String, (tenant: TenantRecord, kind: APIKey.Kind)>(maxEntries: 10_000)
    /// Keys PostgreSQL did not know, answered 401 from memory until they expire.
    private let unknown = ExpiringCache<String, Bool>(maxEntries: 100_000)
    private let buckets = TokenBuckets()
    private let verified = VerifiedTokens()

    /// The longest a subscriber token may still be valid for (a token minted to last for
    /// years cannot be taken back without rotating the signing secret).
    let maxTokenLifetime: TimeInterval

    init(directory: Directory, limits: RateLimits = RateLimits(), maxTokenLifetime: TimeInterval = 30 * 86_400, ttl: TimeInterval = 30) {
        self.directory = directory
        self.limits = limits
        self.maxTokenLifetime = maxTokenLifetime
        self.ttl = ttl
    }

    func authenticate(_ request: HTTPRequest, now: Date) async throws -> Principal {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else {
            throw HTTPError(status: 401, code: "missing_key", message: "send Authorization: Bearer sk_… (servers) or pk_… (devices)")
        }
        guard let key = APIKey(bearer: header) else {
            throw HTTPError(status: 401, code: "invalid_key", message: "the API key is malformed; keys look like sk_<id>_<secret> or pk_<id>_<secret>")
        }
        let (tenant, kind) = try await lookup(key, now: now)
        switch kind {
        case .secret:
            if let wait = buckets.take("key\u{0}" + key.id, perSecond: limits.keyPerSecond, burst: limits.keyBurst, now: now) {
                throw HTTPError.rateLimited("this secret key sent more than \(limits.keyPerSecond) requests a second (burst \(limits.keyBurst)); slow down", retryAfter: wait)
            }
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
            guard Double(expiresAt) - now.timeIntervalSince1970 <= maxTokenLifetime else {
                throw HTTPError(status: 401, code: "invalid_subscriber_token",
                                message: "the subscriber token expires more than \(Int(maxTokenLifetime / 86_400)) days from now; mint shorter-lived tokens")
            }
            // One bucket per subscriber token once its HMAC was seen to check out (the publishable
            // key is every device's); tokens not verified yet share their tenant's bucket, so
            // made-up ones cannot each get a fresh bucket (VerifiedTokens).
            if verified.contains(tenantId: tenant.id, mac: String(parts[2]), now: now) {
                if let wait = buckets.take("sub\u{0}" + tenant.id + "\u{0}" + parts[2].lowercased(), perSecond: limits.subscriberPerSecond,
                                           burst: limits.subscriberBurst, now: now) {
                    throw HTTPError.rateLimited("this subscriber sent more than \(limits.subscriberPerSecond) requests a second (burst \(limits.subscriberBurst)); slow down", retryAfter: wait)
                }
            } else if let wait = buckets.take("unverified\u{0}" + tenant.id, perSecond: limits.unverifiedDevicePerSecond,
                                              burst: limits.unverifiedDeviceBurst, now: now) {
                throw HTTPError.rateLimited("too many device requests with subscriber tokens this server has not verified yet; retry shortly", retryAfter: wait)
            }
            return Principal(tenant: tenant, kind: .device(expiresAt: expiresAt, mac: String(parts[2])), verified: verified)
        }
    }

    /// A device's events are limited one by one, not per request: at most
    /// ``RateLimits/deviceBatchMax`` in a request (`413`, checked before the events are read)...
    func checkDeviceBatch(_ count: Int, from principal: Principal) throws {
        guard !principal.isServer, count > limits.deviceBatchMax else { return }
        throw HTTPError(status: 413, code: "too_many_events",
                        message: "a device sends at most \(limits.deviceBatchMax) events a request, got \(count); split it", field: "events")
    }

    /// ...and ``RateLimits/subscriberEventsPerSecond`` (burst ``RateLimits/subscriberEventBurst``)
    /// per subscriber, whatever tokens its phones hold, a request's events taken whole or
    /// refused whole (`429` with `Retry-After`). Called once the token was checked against
    /// `subscriberId`, so a made-up token cannot spend a real subscriber's allowance. Servers
    /// are not limited here.
    func admitEvents(_ count: Int, from principal: Principal, subscriberId: String, now: Date) throws {
        guard !principal.isServer else { return }
        if let wait = buckets.takeAll("subev\u{0}" + principal.tenant.id + "\u{0}" + subscriberId, count: count,
                                      perSecond: limits.subscriberEventsPerSecond, burst: limits.subscriberEventBurst, now: now) {
            throw HTTPError.rateLimited("subscriber \(subscriberId) sent more than \(limits.subscriberEventsPerSecond) events a second (burst \(limits.subscriberEventBurst)); slow down",
                                        retryAfter: wait)
        }
    }

    /// What is decided from the headers alone, before any of the body is read: a missing or
    /// malformed key or subscriber token, or a key already known to be unknown, is answered
    /// `401`; a key never seen while the lookup budget is spent is answered `429`; a key not
    /// cached is looked up with the connection held, so an unknown key's body is never
    /// buffered. The request then goes on and ``authenticate(_:now:)`` checks it in full from
    /// the cache.
    func precheck(headers: [String: String], now: Date) -> HTTPServer.HeaderVerdict {
        guard let header = headers["authorization"], header.hasPrefix("Bearer ") else {
            return .answer(HTTPError(status: 401, code: "missing_key", message: "send Authorization: Bearer sk_… (servers) or pk_… (devices)").response)
        }
        guard let key = APIKey(bearer: header) else {
            return .answer(HTTPError(status: 401, code: "invalid_key", message: "the API key is malformed; keys look like sk_<id>_<secret> or pk_<id>_<secret>").response)
        }
        if key.kind == .publishable, headers["x-buzzkit-subscriber-token"] == nil {
            return .answer(HTTPError(status: 401, code: "missing_subscriber_token", message: "publishable keys need X-BuzzKit-Subscriber-Token: v1.<expiresAt>.<hmac>").response)
        }
        if key.kind == .publishable, let length = headers["content-length"].flatMap(Int.init), length > limits.deviceBodyMaxBytes {
            return .answer(HTTPError(status: 413, code: "body_too_large",
                                     message: "a device request's body is at most \(limits.deviceBodyMaxBytes) bytes, got \(length); send fewer events at a time").response)
        }
        switch cached(key.kind.rawValue + key.id + key.secretHash, now: now) {
        case .valid:
            return .proceed
        case .unknown:
            return .answer(HTTPError(status: 401, code: "invalid_key", message: "the API key is unknown or revoked").response)
        case .none where !buckets.hasToken("lookups", perSecond: limits.keyLookupsPerSecond, burst: limits.keyLookupBurst, now: now):
            // A flood of made-up keys: answered from the headers, no query, no body.
            return .answer(HTTPError.rateLimited("too many requests with keys this server has not seen yet; retry shortly", retryAfter: 1).response)
        case .none, .expired:
            return .verify { [self] in
                do {
                    _ = try await lookup(key, now: now)
                    return nil
                } catch let refusal as HTTPError {
                    return refusal.response
                } catch {
                    return nil  // an outage: the handler looks again and answers 503 with its cause
                }
            }
        }
    }

    private func lookup(_ key: APIKey, now: Date) async throws -> (TenantRecord, APIKey.Kind) {
        let cacheKey = key.kind.rawValue + key.id + key.secretHash
        let unknownKey = HTTPError(status: 401, code: "invalid_key", message: "the API key is unknown or revoked")
        var stale: (TenantRecord, APIKey.Kind)?
        switch cached(cacheKey, now: now) {
        case .valid(let hit): return hit
        case .unknown: throw unknownKey
        case .expired(let hit): stale = hit  // valid before: looked up again outside the budget
        case .none:
            if let wait = buckets.take("lookups", perSecond: limits.keyLookupsPerSecond, burst: limits.keyLookupBurst, now: now) {
                throw HTTPError.rateLimited("too many requests with keys this server has not seen yet; retry shortly", retryAfter: wait)
            }
        }
        let directory = self.directory
        let answer: (TenantRecord, APIKey.Kind)?
        do {
            answer = try await BlockingPool.shared.run({ try directory.authenticate(key) })
        } catch where ServerError.isOutage(error) {
            // PostgreSQL is out: a key valid before keeps serving (events need only RabbitMQ;
            // a revocation takes effect when it is back); a key never seen cannot be checked.
            if let stale { return stale }
            throw APIContext.storageUnavailable
        }
        guard let found = answer else {
            remember(unknown: cacheKey, until: now.addingTimeInterval(unknownTTL))
            throw unknownKey
        }
        store(cacheKey, found, until: now.addingTimeInterval(ttl))
        return found
    }

    private enum CacheAnswer {
        case valid((TenantRecord, APIKey.Kind))
        case expired((TenantRecord, APIKey.Kind))
        case unknown
        case none
    }

    private func cached(_ key: String, now: Date) -> CacheAnswer {
        switch keys.lookup(key, now: now) {
        case .fresh(let hit): return .valid(hit)
        case .expired(let hit): return .expired(hit)
        case .missing: return unknown.fresh(key, now: now) != nil ? .unknown : .none
        }
    }

    private func store(_ key: String, _ value: (tenant: TenantRecord, kind: APIKey.Kind), until: Date) {
        keys.store(value, for: key, until: until)
        unknown.remove(key)
    }

    private func remember(unknown key: String, until: Date) {
        unknown.store(true, for: key, until: until)
        keys.remove(key)  // revoked since: no longer looked up outside the budget
    }

    /// Forgets cached keys of a tenant (after its keys, signing secret or settings change),
    /// or of every tenant with nil.
    func invalidate(tenantId: String?) {
        keys.removeAll(where: tenantId.map { id in { $0.tenant.id == id } })
    }
}
