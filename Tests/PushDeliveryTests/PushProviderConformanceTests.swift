import APNsStandIn
import Foundation
import PushDelivery
import PushDeliveryTesting
import XCTest

/// The ``PushProvider`` port's behaviour, held to the same tests by the real provider (over
/// HTTP/2 to the APNs stand-in) and its in-memory twin: what a caller is answered for a
/// delivered push, a dead token and a push no APNs would take, and what reaches APNs.
final class PushProviderConformanceTests: XCTestCase {
    /// One provider with token 10 unregistered (since `since`) and token 11 a bad token.
    struct Driver {
        let name: String
        let provider: any PushProvider
        /// The tokens pushes reached, in any order.
        let reached: () -> [String]
        let keep: Any
    }

    let since = Date(timeIntervalSince1970: 1_750_000_000)

    func drivers() throws -> [Driver] {
        var failures = APNsFailurePlan()
        failures.set(.unregistered(since: since), forToken: Fixtures.token(10))
        failures.set(.badDeviceToken, forToken: Fixtures.token(11))
        let harness = try Harness(failures: failures)
        let memory = InMemoryPushProvider()
        memory.setOutcome(.deviceUnregistered(reason: "Unregistered", since: since), forToken: Fixtures.token(10))
        memory.setOutcome(.deviceUnregistered(reason: "BadDeviceToken", since: nil), forToken: Fixtures.token(11))
        return [Driver(name: "apns", provider: harness.provider, reached: { harness.standIn.pushes.map(\.deviceToken) }, keep: harness),
                Driver(name: "in-memory", provider: memory,
                       reached: { memory.sent.map(\.deviceToken) }, keep: memory)]
    }

    func eachDriver(_ body: (Driver) throws -> Void) throws {
        for driver in try drivers() {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            do { try body(driver) } catch { XCTFail("\(driver.name): \(error)") }
            if (testRun?.totalFailureCount ?? 0) > failuresBefore { XCTFail("the failures above are the \(driver.name) driver's") }
        }
    }

    func testDeliveredPushesAreAnswered200OnceWithTheCallersId() throws {
        try eachDriver { driver in
            let id = UUID()
            let alert = PushNotification.alert(deviceToken: Fixtures.token(2), topic: Fixtures.topic, environment: .production,
                                               collapseId: "run_1/nudge/fallback", payload: Fixtures.alertPayload(), apnsId: id)
            let results = driver.provider.send([Fixtures.silent(1), alert])
            XCTAssertEqual(results.map(\.outcomeName), ["delivered", "delivered"])
            XCTAssertEqual(results.map(\.status), [200, 200])
            XCTAssertEqual(results.map(\.attempts), [1, 1])
            XCTAssertEqual(results[1].outcome, .delivered(apnsId: id), "the caller's apns-id")
            XCTAssertEqual(Set(driver.reached()), [Fixtures.token(1), Fixtures.token(2)])
        }
    }

    func testADeadTokenIsAnsweredOnceAndDeactivatesItsDevice() throws {
        try eachDriver { driver in
            let results = driver.provider.send([Fixtures.silent(10), Fixtures.silent(11), Fixtures.silent(12)])
            XCTAssertEqual(results[0].outcome, .deviceUnregistered(reason: "Unregistered", since: since))
            XCTAssertEqual(results[0].status, 410)
            XCTAssertEqual(results[1].outcome, .deviceUnregistered(reason: "BadDeviceToken", since: nil))
            XCTAssertEqual(results[1].status, 400)
            XCTAssertEqual(results.prefix(2).map(\.attempts), [1, 1], "a dead token is not retried")
            XCTAssertTrue(results.prefix(2).allSatisfy(\.deactivatesDevice))
            XCTAssertTrue(results[2].isDelivered, "the others are not held up")
        }
    }

    func testAPayloadOver4096BytesIsRefusedWithoutBeingSent() throws {
        try eachDriver { driver in
            let big = Data(#"{"aps":{"content-available":1},"pad":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 4100) + Data(#""}"#.utf8)
            let results = driver.provider.send([.background(deviceToken: Fixtures.token(3), topic: Fixtures.topic, environment: .production,
                                                            expiration: nil, payload: big)])
            XCTAssertFalse(results[0].isDelivered)
            XCTAssertEqual(results[0].attempts, 0, "refused before sending")
            XCTAssertNil(results[0].status)
            XCTAssertTrue(driver.reached().isEmpty, "nothing reached APNs")
        }
    }
}
