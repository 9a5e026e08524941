import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real transport, over `URLSession` (FoundationNetworking on Linux).
///
/// Connection errors that prove the request never left (no network, host not found,
/// connection refused) become ``BuzzKitError/Code/networkUnavailable``; everything else
/// (timeouts, dropped connections) becomes ``BuzzKitError/Code/networkFailure``.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// A transport with its own ephemeral session, a per-request timeout and a connection
    /// limit per host. One phone needs few connections; a simulated fleet sharing one
    /// transport wants many (for example 64).
    public init(timeout: TimeInterval = 15, maximumConnectionsPerHost: Int = 4) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 2
        configuration.httpMaximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        // The API's answers are never cached (a plan list is `no-store`) and it sets no
        // cookies: without a cache and a cookie store, no request looks in them (on Linux
        // that looking was 6 % of the simulated fleet's CPU in its all-at-once burst).
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never  // FoundationNetworking reads every header line for cookies otherwise
        session = URLSession(configuration: configuration)
    }

    /// A transport over an existing session.
    public init(session: URLSession) {
        self.session = session
    }

    /// Sends the request and returns whatever status the server answered.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let context = "\(request.method) \(request.url.path)"
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw BuzzKitError(Self.isCertainlyUnsent(error) ? .networkUnavailable : .networkFailure,
                               context: context, message: error.localizedDescription)
        } catch {
            throw BuzzKitError(.networkFailure, context: context, message: "\(error)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw BuzzKitError(.networkFailure, context: context, message: "the response was not HTTP")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPTransportResponse(status: http.statusCode, headers: headers, body: data)
    }

    static func isCertainlyUnsent(_ error: URLError) -> Bool {
        switch error.code {
        case .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed,
             .internationalRoamingOff, .dataNotAllowed, .callIsActive, .badURL, .unsupportedURL:
            return true
        default:
            return false
        }
    }
}
