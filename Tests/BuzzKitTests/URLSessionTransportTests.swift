#if canImport(Glibc)
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The real transport over FoundationNetworking: what it sends, what it returns, and how
/// failures are classified.
final class URLSessionTransportTests: XCTestCase {
    func testSendsMethodHeadersAndBodyAndReturnsTheResponse() async throws {
        let server = try LoopbackHTTPServer(response: "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nRetry-After: 7\r\n"
            + "Content-Length: 14\r\nConnection: close\r\n\r\n{\"accepted\":1}")
        let transport = URLSessionTransport(timeout: 5)
        let body = Data("{\"events\":[]}".utf8)
        let response = try await transport.send(HTTPTransportRequest(
            method: "POST", url: URL(string: "http://127.0.0.1:\(server.port)/v1/events")!,
            headers: ["Authorization": "Bearer pk_x", "X-BuzzKit-Subscriber-Token": "v1.1.ab", "Content-Type": "application/json"],
            body: body))
        XCTAssertEqual(response.status, 202)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"accepted\":1}")
        XCTAssertEqual(response.retryAfter, 7)
        XCTAssertTrue(response.isSuccess)
        let request = try XCTUnwrap(server.request)
        XCTAssertTrue(request.hasPrefix("POST /v1/events HTTP/1.1\r\n"), request)
        XCTAssertTrue(request.lowercased().contains("authorization: bearer pk_x"))
        XCTAssertTrue(request.lowercased().contains("x-buzzkit-subscriber-token: v1.1.ab"))
        XCTAssertTrue(request.hasSuffix("{\"events\":[]}"))
    }

    func testErrorStatusIsAResponseNotAThrow() async throws {
        let body = "{\"error\":{\"code\":\"broker_unavailable\",\"message\":\"try later\"}}"
        let server = try LoopbackHTTPServer(response: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body)
        let response = try await URLSessionTransport(timeout: 5).send(HTTPTransportRequest(
            method: "PUT", url: URL(string: "http://127.0.0.1:\(server.port)/v1/subscribers/u/devices")!, body: Data("{}".utf8)))
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.errorSummary, "broker_unavailable: try later")
    }

    func testRefusedConnectionIsCertainlyUnsent() async throws {
        do {
            _ = try await URLSessionTransport(timeout: 5).send(HTTPTransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:1/")!))
            XCTFail("port 1 answered")
        } catch let error as BuzzKitError {
            XCTAssertEqual(error.code, .networkUnavailable)
            XCTAssertEqual(error.context, "GET /")
        }
    }

    func testFailureClassification() {
        XCTAssertTrue(URLSessionTransport.isCertainlyUnsent(URLError(.notConnectedToInternet)))
        XCTAssertTrue(URLSessionTransport.isCertainlyUnsent(URLError(.cannotConnectToHost)))
        XCTAssertFalse(URLSessionTransport.isCertainlyUnsent(URLError(.timedOut)))
        XCTAssertFalse(URLSessionTransport.isCertainlyUnsent(URLError(.networkConnectionLost)))
    }
}
#endif
