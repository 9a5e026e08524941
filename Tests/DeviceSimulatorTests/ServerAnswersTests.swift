@testable import DeviceSimulator
import Foundation
import XCTest

/// The fleet report sets what the phones saw of the server beside the API's own handling time,
/// so a slow answer can be told apart: waiting in the simulator, or in BuzzKit.
final class ServerAnswersTests: XCTestCase {
    private let metrics = """
        # HELP buzzkit_http_request_seconds HTTP request latency by route
        # TYPE buzzkit_http_request_seconds histogram
        buzzkit_http_request_seconds_bucket{route="/v1/subscribers/{id}/devices",le="0.001"} 0
        buzzkit_http_request_seconds_bucket{route="/v1/subscribers/{id}/devices",le="0.005"} 60
        buzzkit_http_request_seconds_bucket{route="/v1/subscribers/{id}/devices",le="0.1"} 99
        buzzkit_http_request_seconds_bucket{route="/v1/subscribers/{id}/devices",le="10"} 100
        buzzkit_http_request_seconds_bucket{route="/v1/subscribers/{id}/devices",le="+Inf"} 100
        buzzkit_http_request_seconds_sum{route="/v1/subscribers/{id}/devices"} 1.5
        buzzkit_http_request_seconds_count{route="/v1/subscribers/{id}/devices"} 100
        buzzkit_http_request_seconds_bucket{route="/v1/events",le="10"} 0
        buzzkit_http_request_seconds_bucket{route="/v1/events",le="+Inf"} 4
        buzzkit_http_requests_total{route="/v1/events",method="POST",status="202"} 4
        """

    func testTheAPIsHandlingTimesComeFromItsHistogram() {
        let handling = ServerAnswers.handling(fromMetrics: metrics)
        XCTAssertEqual(handling["/v1/subscribers/{id}/devices"]?.p50, 0.005)
        XCTAssertEqual(handling["/v1/subscribers/{id}/devices"]?.p99, 0.1)
        XCTAssertEqual(handling["/v1/events"]?.p50, .infinity, "past the last edge")
        XCTAssertNil(handling["/v1/subscribers/{id}/plans"], "a route the API never answered")
    }

    func testTheReportLineSetsThePhonesViewBesideTheAPIs() {
        var times = TimedTransport.RouteTimes()
        times.seconds = [3.9, 4.0, 4.1]
        var answers = ServerAnswers(["PUT /v1/subscribers/{id}/devices": times, "GET /v1/subscribers/{id}/plans": times])
        answers.addHandling(fromMetrics: metrics)
        let lines = answers.lines
        XCTAssertTrue(lines.contains { $0.hasPrefix("  PUT /v1/subscribers/{id}/devices: 3 requests, p50 4000 ms")
                                           && $0.hasSuffix("the API handled them in p50 ≤ 5 ms, p99 ≤ 100 ms") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  GET /v1/subscribers/{id}/plans") && !$0.contains("the API handled") }, "\(lines)")
    }
}
