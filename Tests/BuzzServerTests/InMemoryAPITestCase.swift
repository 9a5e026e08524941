import BuzzAPI
import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import BuzzTesting
import Foundation
import HTTPServer
import PushDelivery
import PushDeliveryTesting
import XCTest

/// The whole path in one process, with no services: the API's handlers (the same routes
/// `buzzkit api` serves) over the in-memory directory, store and broker, the queue stages and
/// the scheduler over the same broker and outbox, pushes to the in-memory provider. A test
/// plays what a phone and a backend do over HTTP, and looks at what each phone is sent.
class InMemoryAPITestCase: XCTestCase {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_029_200))  // 2026-11-30T09:00:00Z
    lazy var store = InMemoryStore(clock: clock)
    let push = InMemoryPushProvider()
    var broker: InMemoryBroker!
    var workers: InMemoryWorkers!
    var api: APIRoutes!
    var credentials: TenantCredentials!

    /// The lanes' settings the pipeline and the API run with (set before `super.setUpWithError()`).
    var lanes = LaneSettings()
    /// The API's request limits (set before `super.setUpWithError()`).
    var rateLimits = RateLimits()

    override func setUpWithError() throws {
        let topology = Topology()
        broker = InMemoryBroker(topology: topology)
        var context = PipelineContext(store: store, topology: topology, push: push, clock: clock)
        context.lanes = lanes
        let outbox = InMemoryOutbox(store: store)
        let directory = InMemoryDirectory(store: store)
        workers = InMemoryWorkers(context: context, broker: broker, outbox: outbox)
        api = APIRoutes(directory: directory, commands: RunCommands(context: context, broker: broker, outbox: outbox), broker: broker,
                        topology: topology, metrics: context.metrics, clock: clock, log: context.log, rateLimits: rateLimits)
        credentials = try directory.createTenant(name: "gym")
    }

    /// One request to the API's handlers; returns the status and the JSON object answered.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, device subscriber: String? = nil,
              expect status: Int? = nil, file: StaticString = #filePath, line: UInt = #line) async throws -> (status: Int, object: [String: Any]) {
        var headers = ["Authorization": "Bearer " + (subscriber == nil ? credentials.secretKey : credentials.publishableKey)]
        if let subscriber {
            headers["X-BuzzKit-Subscriber-Token"] = TenantCredentials.subscriberToken(signingSecret: credentials.signingSecret, subscriberId: subscriber,
                                                                                      expiresAt: Int(clock.now.timeIntervalSince1970) + 3600)
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

    /// Puts the leg-day workflow (07:00 in the subscriber's timezone, cancelled by workout.completed).
    func putLegDay() async throws {
        try await call("PUT", "/v1/workflows/leg-day", try JSONSerialization.jsonObject(with: Data(LegDay.text().utf8)) as? [String: Any],
                       expect: 200)
    }
}
