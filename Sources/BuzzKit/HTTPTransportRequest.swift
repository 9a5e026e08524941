import Foundation

/// An HTTP request as the SDK builds it.
public struct HTTPTransportRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PUT`, …
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields; names as the SDK writes them (`Authorization`, `Content-Type`, …).
    public var headers: [String: String]
    /// The body, if any.
    public var body: Data?

    /// A request from its parts.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
