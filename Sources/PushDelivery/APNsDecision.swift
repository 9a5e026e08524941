import Foundation

/// What to do with one APNs answer, as Apple documents the answers.
///
/// | answer | decision |
/// | --- | --- |
/// | 200 | delivered, with the `apns-id` header |
/// | 410 `Unregistered` (+ `timestamp`, ms since epoch) | device unregistered since then |
/// | 400 `BadDeviceToken` | device unregistered |
/// | 403 `ExpiredProviderToken` | sign a new token, retry at once |
/// | 403 other (`InvalidProviderToken`, `MissingProviderToken`, …) | failed: the key or team is wrong, the push is not at fault |
/// | 429 (`TooManyRequests`, `TooManyProviderTokenUpdates`), 5xx, no answer | retry with backoff |
/// | 413 `PayloadTooLarge`, other 4xx | rejected, no retry |
enum APNsDecision: Equatable {
    /// A final outcome.
    case finish(PushResult.Outcome)
    /// Try again after a backoff; when no attempt is left, the push failed with this reason.
    case retry(reason: String)
    /// The token is stale: renew it and try again without waiting.
    case renewTokenAndRetry

    /// Classifies `response` to a push sent with `sentId` as its `apns-id`.
    static func classify(_ response: HTTPResponse, sentId: UUID) -> APNsDecision {
        if let transportError = response.transportError {
            return .retry(reason: transportError)
        }
        let status = response.status
        let reason = Self.reason(in: response.body)
        switch status {
        case 200:
            let answered = response.headers["apns-id"].flatMap(UUID.init(uuidString:)) ?? sentId
            return .finish(.delivered(apnsId: answered))
        case 410:
            return .finish(.deviceUnregistered(reason: reason ?? "Unregistered", since: timestamp(in: response.body)))
        case 400 where reason == "BadDeviceToken":
            return .finish(.deviceUnregistered(reason: "BadDeviceToken", since: nil))
        case 403 where reason == "ExpiredProviderToken":
            return .renewTokenAndRetry
        case 403:
            return .finish(.failed(status: 403, reason: reason ?? "Forbidden"))
        case 429, 500...599:
            return .retry(reason: reason ?? defaultReason(status))
        case 413:
            return .finish(.rejected(status: 413, reason: reason ?? "PayloadTooLarge"))
        case 400...499:
            return .finish(.rejected(status: status, reason: reason ?? defaultReason(status)))
        default:
            return .finish(.failed(status: status, reason: reason ?? defaultReason(status)))
        }
    }

    /// The `reason` of an APNs error body (`{"reason": "BadDeviceToken"}`), if any.
    static func reason(in body: Data) -> String? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let reason = object["reason"] as? String, !reason.isEmpty else { return nil }
        return String(reason.prefix(200))
    }

    /// The `Retry-After` of an answer in seconds (the delta-seconds form; an HTTP date or
    /// anything else is ignored), at most an hour.
    static func retryAfter(in response: HTTPResponse) -> TimeInterval? {
        guard response.transportError == nil, let text = response.headers["retry-after"],
              let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return TimeInterval(min(seconds, 3600))
    }

    /// The `timestamp` of a 410 body: milliseconds since the epoch when APNs learnt the token
    /// was no longer valid for the topic.
    static func timestamp(in body: Data) -> Date? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let number = object["timestamp"] as? NSNumber else { return nil }
        let milliseconds = number.doubleValue
        guard milliseconds.isFinite, milliseconds > 0 else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// Apple's reason names for answers that come without a body.
    static func defaultReason(_ status: Int) -> String {
        switch status {
        case 400: return "BadRequest"
        case 403: return "Forbidden"
        case 404: return "BadPath"
        case 405: return "MethodNotAllowed"
        case 410: return "Unregistered"
        case 413: return "PayloadTooLarge"
        case 429: return "TooManyRequests"
        case 500: return "InternalServerError"
        case 503: return "ServiceUnavailable"
        default: return "HTTP \(status)"
        }
    }
}
