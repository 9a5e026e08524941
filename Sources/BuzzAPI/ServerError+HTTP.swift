import BuzzServer
import HTTPServer

/// How a ``ServerError`` answers a request: invalid input `400` with its reason as the code,
/// `404`, `409`, an outage `503` with `Retry-After`, and a fault `500` whose cause stays in
/// the log (see ``APIContext/blocking(context:_:)``).
extension ServerError: HTTPErrorConvertible {
    public var httpError: HTTPError {
        switch code {
        case .invalidInput: return HTTPError(status: 400, code: reason ?? "invalid_request", message: message, field: field)
        case .notFound: return HTTPError(status: 404, code: "not_found", message: message, field: field)
        case .conflict: return HTTPError(status: 409, code: "conflict", message: message, field: field)
        case .unavailable: return APIContext.storageUnavailable
        case .configuration, .internal: return APIContext.internalError
        }
    }
}
