import Foundation

/// An HTTP response: status, headers and body.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// A response from its parts.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// `Retry-After` in seconds, when the server sent one as a number.
    public var retryAfter: TimeInterval? {
        header("Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The `error.message` of a BuzzKit error body, or the body as text.
    public var errorSummary: String {
        struct Envelope: Decodable {
            struct Detail: Decodable { var code: String?; var message: String? }
            var error: Detail
        }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: body) {
            return [envelope.error.code, envelope.error.message].compactMap { $0 }.joined(separator: ": ")
        }
        return String(decoding: body.prefix(300), as: UTF8.self)
    }
}
