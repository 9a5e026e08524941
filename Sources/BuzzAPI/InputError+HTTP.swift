import BuzzServer
import HTTPServer

/// Invalid input answers 400 with its code, message and field.
extension InputError: HTTPErrorConvertible {
    public var httpError: HTTPError { HTTPError(status: 400, code: code, message: message, field: field) }
}
