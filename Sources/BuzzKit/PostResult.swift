import Foundation

/// How one request to the API ended, as far as retrying is concerned.
enum PostResult {
    /// 2xx.
    case accepted
    /// 401: the subscriber token is expired or wrong; fetch a new one.
    case unauthorized(BuzzKitError)
    /// 400, 413 or 422: the request's content is refused and resending it cannot help.
    case refused(BuzzKitError)
    /// Any other status (408, 429, 5xx, and 403/404-style misconfiguration that says nothing
    /// about the content), network trouble or no token: retry later. `ambiguous` when the
    /// server may have acted on it (5xx other than 503, timeouts, dropped connections).
    /// `503 Service Unavailable` is not: the server "is currently unable to handle the
    /// request" (RFC 9110 §15.6.4), and BuzzKit's API answers it only when nothing was
    /// recorded (PostgreSQL or RabbitMQ unavailable; a commit cut off answers 500). A plan
    /// whose acknowledgment got a 503 is held before a suspension, so the fallback shows it.
    case failed(BuzzKitError, retryAfter: TimeInterval?, ambiguous: Bool)

    /// Classifies a response.
    init(response: HTTPTransportResponse, context: String) {
        // An accepted answer's body is not read for an error: a plan list of a crowded phone
        // was parsed whole for it on every sync.
        if (200..<300).contains(response.status) {
            self = .accepted
            return
        }
        let error = BuzzKitError(.httpStatus, context: context, message: "HTTP \(response.status): \(response.errorSummary)")
        switch response.status {
        case 401: self = .unauthorized(error)
        case 400, 413, 422: self = .refused(error)
        case 400..<500, 503: self = .failed(error, retryAfter: response.retryAfter, ambiguous: false)
        default: self = .failed(error, retryAfter: response.retryAfter, ambiguous: true)
        }
    }

    /// Classifies a transport failure.
    init(transportError: any Error, context: String) {
        let error = (transportError as? BuzzKitError)
            ?? BuzzKitError(.networkFailure, context: context, message: "\(transportError)")
        self = .failed(error, retryAfter: nil, ambiguous: error.code != .networkUnavailable)
    }
}
