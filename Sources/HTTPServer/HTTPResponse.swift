import Foundation

/// A response to send.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` encoded as JSON with `Content-Type: application/json`.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        do {
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: try HTTPJSON.encoder.encode(value))
        } catch {
            return HTTPError(status: 500, code: "encoding_failed", message: "the response could not be encoded: \(error)").response
        }
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Data(text.utf8))
    }
}

/// Shared JSON coders for the API (sorted keys, ISO 8601 dates).
public enum HTTPJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
