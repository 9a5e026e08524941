import Foundation
@testable import PushDelivery

/// Sends raw HTTP/2 requests through the provider's libcurl loop (trusting the test CA), to
/// reach the stand-in with requests the provider itself never makes.
final class RawClient {
    let loop: CurlMultiLoop

    init() throws {
        var settings = CurlMultiLoop.Settings()
        settings.trustedCertificates = try TrustedCertificates(pem: Fixtures.credentials.caCertificatePEM, source: "test CA")
        settings.requestTimeout = 10
        loop = try CurlMultiLoop(settings: settings, name: "raw-client")
    }

    deinit {
        loop.close()
    }

    /// Carries a response from the loop thread to the test thread.
    private final class Box: @unchecked Sendable {
        var response: HTTPResponse?
    }

    func send(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        loop.submit(request) { response in
            box.response = response
            done.signal()
        }
        done.wait()
        return box.response ?? .failure("no response")
    }
}
