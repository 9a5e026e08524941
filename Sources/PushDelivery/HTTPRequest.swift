import Foundation

/// One HTTP/2 request for ``CurlMultiLoop``: the provider builds APNs requests with it, and
/// tests use it to send requests the provider itself never would (to check the stand-in).
struct HTTPRequest: Sendable {
    /// The absolute URL (`https://host:port/3/device/<token>`).
    var url: String
    /// The method; APNs takes only `POST`.
    var method: String
    /// Header fields in order, names in lowercase as HTTP/2 requires.
    var headers: [(name: String, value: String)]
    /// The body (sent for every method when not empty).
    var body: Data

    /// Creates a request.
    init(url: String, method: String = "POST", headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The header lines for `CURLOPT_HTTPHEADER`. `content-type:` with nothing after it
    /// removes the form content type curl would add to a POST; `accept:` removes curl's
    /// `accept: */*`. A header whose value is empty is sent with `name;`, curl's way.
    var curlHeaderLines: [String] {
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        let names = Set(headers.map { $0.name.lowercased() })
        if !names.contains("content-type") { lines.append("content-type:") }
        if !names.contains("accept") { lines.append("accept:") }
        return lines
    }
}
