import AMQPClient
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// The operators' commands, as a shell runs them, against a pipeline on its own schema and
/// queues: `buzzkit runs list`, `subscriber show|delete`, `workflow list|retire`, `dlq list|replay`.
final class OperatorCommandsIntegrationTests: PipelineTestCase {
    /// Runs `buzzkit` with `arguments`; returns its exit status and what it printed.
    func buzzkit(_ arguments: String...) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = TestServices.repositoryRoot.appendingPathComponent(".build/debug/buzzkit")
        process.arguments = arguments
        process.environment = TestServices.processEnvironment(schema: pipeline.schema)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile() + err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    func testSupportFindsASubscribersRunsAndErasesThem() throws {
        let token = try XCTUnwrap(try pipeline.subscriber("maya").first)
        try pipeline.scheduleWorkout("maya", at: Date().addingTimeInterval(3600))
        XCTAssertTrue(TestServices.eventually(timeout: 5) { !self.pipeline.pushes(to: token).isEmpty })
        let runId = try XCTUnwrap(try pipeline.runs().first?.id.uuidString.lowercased())

        let listed = try buzzkit("runs", "list", pipeline.tenantId, "--subscriber", "maya")
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.output.contains("\(runId)  leg-day  maya  waiting"), listed.output)
        let shown = try buzzkit("subscriber", "show", pipeline.tenantId, "maya")
        XCTAssertTrue(shown.output.contains("…" + token.suffix(8)) && !shown.output.contains(token), shown.output)
        XCTAssertEqual(try buzzkit("subscriber", "delete", pipeline.tenantId, "maya").status, 0)
        XCTAssertTrue(TestServices.eventually(timeout: 5) { self.pipeline.pushes(to: token).count == 2 }, "the phone got bk.cancel")
        XCTAssertNotEqual(try buzzkit("subscriber", "show", pipeline.tenantId, "maya").status, 0, "gone")
        XCTAssertFalse(try buzzkit("runs", "list", pipeline.tenantId, "--status", "cancelled").output.contains(runId), "its runs went with it")
    }

    func testAnOperatorRetiresAWorkflowAndReplaysADeadLetter() throws {
        XCTAssertTrue(try buzzkit("workflow", "list", pipeline.tenantId).output.contains("leg-day  version 1"))
        XCTAssertEqual(try buzzkit("workflow", "retire", pipeline.tenantId, "leg-day").status, 0)
        XCTAssertEqual(try buzzkit("workflow", "list", pipeline.tenantId).output, "")
        XCTAssertNotEqual(try buzzkit("workflow", "retire", pipeline.tenantId, "leg-day").status, 0, "already retired")

        // A pipeline message nobody can read is dead-lettered; listing shows why; a replay
        // sends it back (and, still unreadable, it is dead-lettered again).
        try pipeline.publisher.publishAndWait([AMQPMessage(routingKey: pipeline.topology.name(.fallbackCheck), body: Data("{}".utf8), messageId: "odd-1")])
        let letters = DeadLetters(topology: pipeline.topology, amqp: TestServices.amqp)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.fallbackCheck).count == 1 })
        let listed = try buzzkit("dlq", "list", "fallback-check")
        XCTAssertTrue(listed.output.contains("odd-1") && listed.output.contains("not a pipeline message"), listed.output)
        let replayed = try buzzkit("dlq", "replay", "fallback-check")
        XCTAssertTrue(replayed.output.contains("replayed 1 message(s)"), replayed.output)
        XCTAssertTrue(try TestServices.eventually(timeout: 10) { try letters.list(.fallbackCheck).map(\.messageId) == ["odd-1"] }, "back, once")
        XCTAssertNotEqual(try buzzkit("dlq", "list", "nowhere").status, 0)
    }
}
