import BuzzAPI
import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import HTTPServer
import PushDelivery
import XCTest

/// The whole path in one process, with no services: the API's handlers (the same routes
/// `buzzkit api` serves) over the in-memory directory, store and broker, the queue stages and
/// the scheduler over the same broker and outbox, pushes to the in-memory provider. What a
/// phone and a backend do over HTTP, and what each phone is sent.
final class InMemoryWholePathTests: XCTestCase {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_029_200))  // 2026-11-30T09:00:00Z
    lazy var store = InMemoryStore(clock: clock)
    let push = InMemoryPushProvider()
    var broker: InMemoryBroker!
    var workers: InMemoryWorkers!
    var api: APIRoutes!
    var credentials: TenantCredentials!

    override func setUpWithError() throws {
        let topology = Topology()
        broker = InMemoryBroker(topology: topology)
        let context = PipelineContext(store: store, topology: topology, push: push, clock: clock)
        let outbox = InMemoryOutbox(store: store)
        let directory = InMemoryDirectory(store: store)
        workers = InMemoryWorkers(context: context, broker: broker, outbox: outbox)
        api = APIRoutes(directory: directory, commands: RunCommands(context: context, broker: broker, outbox: outbox), broker: broker,
                        topology: topology, metrics: context.metrics, clock: clock, log: context.log)
        credentials = try directory.createTenant(name: "gym")
    }

    /// One request to the API's handlers; returns the status and the JSON object answered.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, device subscriber: String? = nil,
              expect status: Int? = nil, file: StaticString = #filePath, line: UInt = #line) async throws -> (status: Int, object: [String: Any]) {
        var headers = ["Authorization": "Bearer " + (subscriber == nil ? credentials.secretKey : credentials.publishableKey)]
        if let subscriber {
            headers["X-BuzzKit-Subscriber-Token"] = TenantCredentials.subscriberToken(signingSecret: credentials.signingSecret, subscriberId: subscriber,
                                                                                      expiresAt: Int(clock.now().timeIntervalSince1970) + 3600)
        }
        let request = HTTPRequest(method: method, path: path, headers: headers, body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data())
        let response = await api.handle(request)
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        if let status { XCTAssertEqual(response.status, status, String(decoding: response.body, as: UTF8.self), file: file, line: line) }
        return (response.status, object)
    }

    /// A phone of `subscriber` registered over the API; returns its token.
    func phone(_ subscriber: String) async throws -> String {
        let token = (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
        try await call("PUT", "/v1/subscribers/\(subscriber)/devices", ["token": token, "platform": "ios", "topic": "com.example.gym", "environment": "production"],
                       device: subscriber, expect: 200)
        return token
    }

    func pushes(to token: String, _ type: PushNotification.PushType) -> [PushNotification] {
        push.sent.filter { $0.deviceToken == token && $0.pushType == type }
    }

    func testAPlanReachesThePhoneAndOnlyTheUnacknowledgedWindowGetsItsFallback() async throws {
        try await call("PUT", "/v1/workflows/leg-day", try JSONSerialization.jsonObject(with: Data(InMemoryPipeline.legDay.utf8)) as? [String: Any],
                       expect: 200)
        try await call("PUT", "/v1/subscribers/maya", ["timezone": "Europe/Berlin"], expect: 200)
        try await call("PUT", "/v1/subscribers/ola", ["timezone": "Europe/Berlin"], expect: 200)
        let mayasPhone = try await phone("maya"), olasPhone = try await phone("ola")
        for subscriber in ["maya", "ola"] {
            try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": subscriber, "properties": ["workoutId": "w1"]], expect: 202)
        }
        try workers.runUntilIdle()

        // Each phone got its plan in a silent push; Maya's phone schedules it and says so.
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pushes(to: mayasPhone, .background).first).payload).local
        XCTAssertEqual(pushes(to: olasPhone, .background).count, 1)
        try await call("POST", "/v1/events", ["event": "$local.scheduled", "subscriberId": "maya", "timestamp": RFC3339.format(clock.now()),
                                              "properties": ["localId": plan.id, "messageId": plan.messageId, "device": mayasPhone]],
                       device: "maya", expect: 202)
        try workers.runUntilIdle()
        XCTAssertTrue(push.sent.allSatisfy { $0.pushType == .background }, "nothing but plans before the moment")

        // At 07:00 Berlin the next morning: Ola's phone never confirmed, so Ola gets the same
        // message as an ordinary push, once; Maya's phone shows its own.
        clock.advance(by: 86_400)
        try workers.runUntilIdle()
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: olasPhone, .alert).count, 1, "the fallback, once")
        XCTAssertEqual(pushes(to: mayasPhone, .alert).count, 0, "acknowledged: no fallback")
        let runId = String(plan.id.prefix { $0 != "/" })
        let summary = try await call("GET", "/v1/runs/\(runId)", expect: 200).object
        XCTAssertEqual(summary["status"] as? String, "completed")
        let local = ((summary["steps"] as? [[String: Any]])?.last?["local"] as? [String: Any]) ?? [:]
        XCTAssertEqual(local["acknowledged"] as? Bool, true)
        XCTAssertEqual(broker.deadLetters.values.map(\.count).reduce(0, +), 0, "nothing dead-lettered")
    }

    func testACancelBeforeTheMomentReachesThePhoneAndNothingFollows() async throws {
        try await call("PUT", "/v1/workflows/leg-day", try JSONSerialization.jsonObject(with: Data(InMemoryPipeline.legDay.utf8)) as? [String: Any],
                       expect: 200)
        let token = try await phone("maya")
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 1, "the plan")
        try await call("POST", "/v1/events", ["event": "workout.completed", "subscriberId": "maya"], expect: 202)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .background).count, 2, "and the cancel")
        clock.advance(by: 86_400)
        try workers.runUntilIdle()
        XCTAssertEqual(pushes(to: token, .alert).count, 0, "no fallback after a cancel")
        let plans = try await call("GET", "/v1/subscribers/maya/plans", device: "maya", expect: 200).object["plans"] as? [Any]
        XCTAssertEqual(plans?.count, 0, "sync lists nothing for a cancelled run")
    }

    func testEventsGet503WhileTheBrokerIsDownAndNothingIsHalfAccepted() async throws {
        broker.isConnected = false
        try await call("POST", "/v1/events", ["event": "workout.scheduled", "subscriberId": "maya"], expect: 503)
        let ready = try await call("GET", "/readyz")
        XCTAssertEqual(ready.status, 503)
        broker.isConnected = true
        try workers.runUntilIdle()
        XCTAssertTrue(store.withState { $0.runs.isEmpty }, "the refused event started nothing")
    }
}
