import Foundation
import XCTest
@testable import HTTPServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class HTTPServerTests: XCTestCase {
    var server: HTTPServer!

    override func setUpWithError() throws {
        var router = Router()
        router.add("GET", "/v1/runs/{id}") { request in
            .json(["id": try request.parameter("id")])
        }
        router.add("POST", "/v1/echo") { request in
            HTTPResponse(status: 202, headers: [("Content-Type", "application/octet-stream")], body: request.body)
        }
        router.add("GET", "/slow") { _ in
            try await Task.sleep(nanoseconds: 300_000_000)
            return .text("done")
        }
        router.add("GET", "/fail") { _ in
            throw HTTPError(status: 422, code: "invalid_workflow", message: "steps[0].send.deliver: expected \"local\" or \"push\"", field: "steps[0].send.deliver")
        }
        router.add("GET", "/crash") { _ in
            struct Internal: Error {}
            throw Internal()
        }
        let routes = router
        server = HTTPServer(.init(host: "127.0.0.1", port: 0, maxBodyBytes: 1024)) { await routes.handle($0) }
        try server.start()
    }

    override func tearDown() {
        server.stop(grace: 1)
    }

    func call(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, Data, HTTPURLResponse) {
        try await Self.call(port: server.port, method, path, body: body, headers: headers)
    }

    static func call(port: Int, _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, Data, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, data, http)
    }

    func testRouteParametersAndJSON() async throws {
        let (status, data, response) = try await call("GET", "/v1/runs/run-42", headers: ["X-Request-Id": "req-1"])
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try JSONDecoder().decode([String: String].self, from: data), ["id": "run-42"])
        XCTAssertEqual(response.value(forHTTPHeaderField: "X-Request-Id"), "req-1")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testBodyIsDeliveredWhole() async throws {
        let body = Data((0..<1000).map { UInt8($0 % 251) })
        let (status, data, _) = try await call("POST", "/v1/echo", body: body)
        XCTAssertEqual(status, 202)
        XCTAssertEqual(data, body)
    }

    func testOversizeBodyIs413WithJSONError() async throws {
        let (status, data, _) = try await call("POST", "/v1/echo", body: Data(count: 5000))
        XCTAssertEqual(status, 413)
        let json = try JSONSerialization.jsonObject(with: data) as! [String: [String: String]]
        XCTAssertEqual(json["error"]?["code"], "body_too_large")
    }

    func testUnknownPathIs404AndWrongMethodIs405() async throws {
        let (notFound, _, _) = try await call("GET", "/nope")
        XCTAssertEqual(notFound, 404)
        let (notAllowed, data, _) = try await call("DELETE", "/v1/runs/1")
        XCTAssertEqual(notAllowed, 405)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("method_not_allowed"))
    }

    func testThrownErrorsRenderAsJSON() async throws {
        let (status, data, _) = try await call("GET", "/fail")
        XCTAssertEqual(status, 422)
        let json = try JSONSerialization.jsonObject(with: data) as! [String: [String: String]]
        XCTAssertEqual(json["error"]?["field"], "steps[0].send.deliver")
        let (crash, crashBody, _) = try await call("GET", "/crash")
        XCTAssertEqual(crash, 500)
        XCTAssertTrue(String(decoding: crashBody, as: UTF8.self).contains("\"internal\""))
        // The server keeps answering after a handler failed.
        let (ok, _, _) = try await call("GET", "/v1/runs/1")
        XCTAssertEqual(ok, 200)
    }

    func testSlowHandlersDoNotBlockOtherRequests() async throws {
        let started = Date()
        try await withThrowingTaskGroup(of: Int.self) { group in
            let port = server.port
            for _ in 0..<8 { group.addTask { try await Self.call(port: port, "GET", "/slow").0 } }
            for try await status in group { XCTAssertEqual(status, 200) }
        }
        // Eight 0.3 s handlers served one after another would take 2.4 s.
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.0)
    }

    func testStopWaitsForRequestsInFlight() async throws {
        let server = self.server!
        let port = server.port
        async let slow = Self.call(port: port, "GET", "/slow")
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(server.requestsInFlight, 1)
        let stopper = Thread { server.stop(grace: 5) }
        stopper.start()
        let (status, _, _) = try await slow
        XCTAssertEqual(status, 200, "the request in flight was answered during the graceful stop")
    }

    /// A handler that outlives the grace: its client gets `500 interrupted` (not `503`: the
    /// handler may still commit, and `503` tells a client nothing was done) and the process
    /// does not abort (libmicrohttpd aborts when stopped with a suspended connection).
    func testStopAnswersRequestsStillRunningAfterTheGrace() async throws {
        var router = Router()
        router.add("GET", "/forever") { _ in
            try? await Task.sleep(nanoseconds: 1_500_000_000)
            return .text("too late")
        }
        let routes = router
        let server = HTTPServer(.init(host: "127.0.0.1", port: 0)) { await routes.handle($0) }
        try server.start()
        let port = server.port
        async let stuck = Self.call(port: port, "GET", "/forever")
        // Stop once the request is in its handler (a fixed wait lost the race on a slow machine:
        // the stop closed the listener first, and the client got an empty reply).
        let arrival = Date().addingTimeInterval(5)
        while server.requestsInFlight == 0, Date() < arrival { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(server.requestsInFlight, 1, "the request is in its handler")
        let started = Date()
        let stopper = Thread { server.stop(grace: 0.3) }
        stopper.start()
        let (status, body, _) = try await stuck
        XCTAssertEqual(status, 500)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("interrupted"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.2, "answered at the end of the grace, not when the handler finished")
        while server.requestsInFlight > 0 || stopper.isExecuting { try await Task.sleep(nanoseconds: 20_000_000) }
        try await Task.sleep(nanoseconds: 1_500_000_000)  // the handler finishes after the stop: nothing happens
    }
}
