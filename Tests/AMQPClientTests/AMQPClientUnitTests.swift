import CRabbitMQ
import Foundation
import XCTest
@testable import AMQPClient

final class AMQPClientUnitTests: XCTestCase {
    func testURLParsing() throws {
        let url = try AMQPURL("amqp://app:p%40ss@broker.internal:5673/tenant%2Fa?heartbeat=30")
        XCTAssertEqual(url.host, "broker.internal")
        XCTAssertEqual(url.port, 5673)
        XCTAssertEqual(url.user, "app")
        XCTAssertEqual(url.password, "p@ss")
        XCTAssertEqual(url.vhost, "tenant/a")
        XCTAssertEqual(url.heartbeat, 30)
        XCTAssertFalse(url.redacted.contains("p@ss"))
        XCTAssertEqual(try AMQPURL("amqp://guest:guest@127.0.0.1:55672/%2f").vhost, "/")
        XCTAssertEqual(try AMQPURL("amqp://localhost").vhost, "/")
        XCTAssertThrowsError(try AMQPURL("http://localhost"))
        XCTAssertThrowsError(try AMQPURL("amqp://localhost/?heartbeat=soon"))
    }

    func testFieldTableRoundTrip() {
        let headers: [String: AMQPFieldValue] = [
            "reason": "malformed JSON at byte 3",
            "attempts": .int(5),
            "poison": true,
            "ratio": .double(0.25),
            "death": .array([.table(["queue": "trigger", "count": .int(2)])]),
        ]
        let arena = CArena()
        let table = arena.table(headers)
        XCTAssertEqual(AMQPDecode.table(table), headers)
    }

    func testErrorsSayWhatFailed() {
        let error = AMQPConnection.statusError(AMQP_STATUS_CONNECTION_CLOSED.rawValue, context: "basic.publish")
        XCTAssertEqual(error.code, .connectionLost)
        XCTAssertTrue(error.isConnectionProblem)
        XCTAssertTrue(error.description.contains("basic.publish"))
    }
}
