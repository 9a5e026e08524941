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

    func testClusterURLsListEveryNodeOnce() throws {
        let nodes = try AMQPEndpoints("amqp://u:secret@rmq-0:5672/%2f, amqp://u:secret@rmq-1:5672/%2f,amqp://u:secret@rmq-2:5672/%2f,amqp://u:secret@rmq-0:5672/%2f")
        XCTAssertEqual(nodes.urls.map(\.host), ["rmq-0", "rmq-1", "rmq-2"])
        XCTAssertFalse(nodes.redacted.contains("secret"))
        XCTAssertEqual(try AMQPEndpoints("amqp://guest:guest@127.0.0.1:55672/%2f").urls.count, 1)
        // Nodes of one cluster share the login and vhost; a mix is a mistake worth naming.
        XCTAssertThrowsError(try AMQPEndpoints("amqp://a:x@h1/%2f,amqp://b:x@h2/%2f"))
        XCTAssertThrowsError(try AMQPEndpoints(" , "))
        XCTAssertThrowsError(try AMQPEndpoints("amqp://h1,http://h2"))
        // Processes spread over the nodes by their seed.
        XCTAssertEqual(Set((0..<6).map { nodes.startIndex(seed: $0) }), [0, 1, 2])
    }

    func testConnectingSkipsDeadNodesAndNamesThemAllWhenNoneAnswers() throws {
        // Port 1 on loopback refuses at once: both "nodes" are dead.
        let dead = AMQPEndpoints([AMQPURL(host: "127.0.0.1", port: 1), AMQPURL(host: "127.0.0.1", port: 2)])
        XCTAssertThrowsError(try dead.connect(startingAt: 1)) { error in
            let amqp = error as? AMQPError
            XCTAssertEqual(amqp?.code, .connectionFailed)
            XCTAssertTrue(amqp?.message.contains("no RabbitMQ node of 2") == true, "\(String(describing: amqp))")
            XCTAssertTrue(amqp?.message.contains(":1") == true && amqp?.message.contains(":2") == true)
        }
        var cursor = AMQPNodeCursor(dead)
        let first = cursor.index
        cursor.advance()
        XCTAssertEqual(cursor.index, (first + 1) % 2, "after a lost connection the next attempt starts at the next node")
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
