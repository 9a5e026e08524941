import AMQPClient
import AMQPModel
import BuzzServer
import DeviceSimulator
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The console in a real browser (headless Chromium driven by Selenium, `Tests/Console`),
/// against the real API, workers, scheduler, PostgreSQL, RabbitMQ and the APNs stand-in, with
/// two phones of the device simulator: one that acknowledges its plan and one force-quit (its
/// reminder is the fallback). Support's question, answered on screen.
final class ConsoleEndToEndTests: XCTestCase {
    func testSupportFindsWhyAReminderCameTheWayItDid() async throws {
        let environment = ProcessInfo.processInfo.environment
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = root.appendingPathComponent(".tools/venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            XCTFail("the console test needs .tools/venv (selenium) and chromium-driver: run `bash scripts/services.sh install`")
            return
        }
        let stack = try await ServerStack(prefix: "console")
        let topology = Topology(prefix: stack.tag + ".")
        let amqp = AMQPEndpoints(try AMQPURL(stack.amqpURL))
        defer {
            XCTAssertEqual(stack.stop(), [], "every process drains and exits 0 on SIGTERM")
            if let connection = try? amqp.connect().connection {
                for queue in Topology.Queue.allCases { for name in [topology.name(queue), topology.deadLetterName(queue)] { _ = try? connection.deleteQueue(name) } }
                connection.close()
            }
        }
        // Screenshots stay for a person to look at: .build/console-test/<tag>.
        let output = root.appendingPathComponent(".build/console-test/\(stack.tag)").path
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let keys = stack.keys, base = stack.baseURL

        // Two phones: one holds its plan (shown locally), one was force-quit (the fallback).
        let report = try await Fleet(configuration: stack.fleet(subscribers: 2, mix: [.healthy, .forceQuit], settleSeconds: 6),
                                     router: stack.standIn.router).run()
        XCTAssertEqual(report.violations, [], report.text)
        let acknowledged = try XCTUnwrap(report.outcomes.first { $0.behaviour == .healthy }?.subscriberId)
        let fallback = try XCTUnwrap(report.outcomes.first { $0.behaviour == .forceQuit }?.subscriberId)

        // A run whose trigger carries markup (a dry run: nothing is sent), and a dead letter.
        let hostile = try await dryRun(base: base, secretKey: keys["secretKey"]!, subscriberId: acknowledged,
                                       properties: ["note": "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"])
        let publisher = AMQPPublisher(.init(endpoints: amqp))
        defer { publisher.close() }
        try publisher.publishAndWait([AMQPMessage(exchange: topology.eventsExchange, routingKey: "\(keys["tenantId"] ?? "t_unknown").workout.booked",
                                                  body: Data("not json".utf8), messageId: "console-dead-letter")])
        let letters = DeadLetters(topology: topology, amqp: amqp)
        let deadline = Date().addingTimeInterval(20)
        while try letters.list(.trigger).isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 200_000_000) }
        XCTAssertEqual(try letters.list(.trigger).count, 1, "the malformed event was dead-lettered")

        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: python)
        browser.arguments = [root.appendingPathComponent("Tests/Console/console_test.py").path]
        browser.environment = environment.merging([
            "CONSOLE_URL": base.absoluteString + "/console", "CONSOLE_SECRET_KEY": keys["secretKey"]!,
            "CONSOLE_ACKNOWLEDGED_SUBSCRIBER": acknowledged, "CONSOLE_FALLBACK_SUBSCRIBER": fallback,
            "CONSOLE_HOSTILE_RUN": hostile, "CONSOLE_OUTPUT": output,
        ]) { _, new in new }
        let pipe = Pipe()
        browser.standardOutput = pipe
        browser.standardError = pipe
        try browser.run()
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        print(said)
        XCTAssertEqual(browser.terminationStatus, 0, "the browser test failed:\n\(said)")
        // The replayed letter is handled again, fails again and comes back: nothing lost.
        let back = Date().addingTimeInterval(20)
        while try letters.list(.trigger).count != 1, Date() < back { try await Task.sleep(nanoseconds: 200_000_000) }
        XCTAssertEqual(try letters.list(.trigger).count, 1, "the replayed letter failed again and is back: nothing lost")
        let log = (try? String(contentsOfFile: stack.directory + "/api.log", encoding: .utf8)) ?? ""
        XCTAssertFalse(log.contains(keys["secretKey"]!), "the secret key never reaches the API's log")
    }

    /// Triggers the fleet's workflow as a dry run for `subscriberId`; returns the run id.
    func dryRun(base: URL, secretKey: String, subscriberId: String, properties: [String: String]) async throws -> String {
        var list = URLRequest(url: base.appendingPathComponent("v1/workflows"))
        list.setValue("Bearer \(secretKey)", forHTTPHeaderField: "Authorization")
        let (listed, _) = try await URLSession.shared.data(for: list)
        let workflows = try XCTUnwrap((try JSONSerialization.jsonObject(with: listed) as? [String: Any])?["workflows"] as? [[String: Any]])
        let key = try XCTUnwrap(workflows.first?["key"] as? String)
        var trigger = URLRequest(url: base.appendingPathComponent("v1/workflows/\(key)/trigger"))
        trigger.httpMethod = "POST"
        trigger.setValue("Bearer \(secretKey)", forHTTPHeaderField: "Authorization")
        trigger.setValue("application/json", forHTTPHeaderField: "Content-Type")
        trigger.httpBody = try JSONSerialization.data(withJSONObject: ["subscriberId": subscriberId, "properties": properties, "dryRun": true])
        let (body, response) = try await URLSession.shared.data(for: trigger)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201, String(decoding: body, as: UTF8.self))
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["runId"] as? String)
    }
}
