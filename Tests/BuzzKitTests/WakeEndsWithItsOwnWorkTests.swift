import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A wake waits for what it started (its acknowledgment, the sync under way), not for what
/// later wakes start. A crowded phone of the 10,000-subscriber fleet all at once got a push
/// about every second; each push started a sync and queued an acknowledgment, and every wake
/// waited for those of the wakes after it, to its deadline (wakes p50 21.6 s of iOS's 30 s),
/// so a busy moment on the machine pushed some past 30 s. iOS also counts an app's
/// background time against the pushes it gets.
final class WakeEndsWithItsOwnWorkTests: XCTestCase {
    private static let budget: TimeInterval = 6
    private static let syncTakes: TimeInterval = 0.4
    private static let postTakes: TimeInterval = 0.25

    private func makeClient(_ transport: RecordingTransport, _ center: InMemoryNotificationCenter) throws -> BuzzKitClient {
        var configuration = Configuration(apiBaseURL: URL(string: "https://api.buzzkit.test")!, publishableKey: "pk_t",
                                          subscriberId: "u_123", subscriberToken: .fixed(TestPhone.token), pushTopic: "t")
        configuration.backgroundBudget = Self.budget
        return try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
            notificationCenter: center, clock: SystemClock(timeZone: TestPhone.berlin), store: InMemoryKeyValueStore(),
            transport: transport, random: { 0 }))
    }

    private func plan(_ id: String, in seconds: TimeInterval) -> LocalPlan {
        let payload = Payloads.plan(id, fireAt: FireAt(instant: Date().addingTimeInterval(seconds), in: TestPhone.berlin))
        guard case .plan(let plan) = IncomingPush(payload: payload) else { preconditionFailure("not a plan") }
        return plan
    }

    /// Twenty-four pushes 0.1 s apart, each sync taking 0.4 s and each batch of acknowledgments
    /// 0.25 s (so a flush is always under way): the first wake answers once its own sync and
    /// acknowledgment are done, long before the stream of pushes ends; every plan is
    /// acknowledged, and the last wake leaves nothing unconfirmed in the center.
    func testAWakeAnswersWhenItsOwnRequestsAreDoneWhileLaterPushesKeepComing() async throws {
        let transport = RecordingTransport()
        let center = InMemoryNotificationCenter(clock: SystemClock(timeZone: TestPhone.berlin))
        let plans = (0..<24).map { plan("run-\($0)/x", in: 3_600 + Double($0)) }
        // The server lists a plan from its push on.
        let listed = Locked([LocalPlan]())
        transport.setRule { request in
            if request.method == "POST" { return .delayed(Self.postTakes, .status(202, body: #"{"accepted":1}"#)) }
            guard request.method == "GET", request.url.path.hasSuffix("/plans") else { return nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let list = String(decoding: (try? encoder.encode(listed.withLock { $0 })) ?? Data("[]".utf8), as: UTF8.self)
            return .delayed(Self.syncTakes, .status(200, body: "{\"plans\": \(list), \"asOf\": \"2026-11-30T09:00:00Z\"}"))
        }
        let client = try makeClient(transport, center)
        await client.start()
        await client.settle()
        await client.applicationDidEnterBackground()

        let began = Date()
        let answers = await withTaskGroup(of: (Int, TimeInterval).self) { group in
            for (index, plan) in plans.enumerated() {
                group.addTask {
                    try? await Task.sleep(nanoseconds: UInt64(Double(index) * 0.1 * 1e9))
                    listed.withLock { $0.append(plan) }
                    let arrived = Date()
                    _ = await client.handleRemoteNotification(payload: Payloads.members(SilentPlanPayload(local: plan).jsonBytes))
                    return (index, Date().timeIntervalSince(arrived))
                }
            }
            var answers: [Int: TimeInterval] = [:]
            for await (index, took) in group { answers[index] = took }
            return answers
        }
        let streamLasted = Date().timeIntervalSince(began)
        let first = try XCTUnwrap(answers[0])
        XCTAssertLessThan(first, 1.5, "the first wake answered after \(first) s; the pushes went on for \(streamLasted) s")
        XCTAssertLessThan(answers.values.max() ?? 0, Self.budget, "every wake within the budget: \(answers)")

        await client.settle()
        let acknowledged = Set(transport.postedEvents.filter { $0.event == BuzzEvent.localScheduled }
            .compactMap { $0.properties["localId"]?.stringValue })
        XCTAssertEqual(acknowledged, Set(plans.map(\.id)))
        let book = await client.planBook
        let unconfirmedScheduled = book.records.values.filter { $0.state == .scheduled && $0.acknowledgmentConfirmed != true }
        XCTAssertEqual(unconfirmedScheduled.map(\.localId), [], "nothing unconfirmed left in the center for the suspension")
        let pending = Set(await center.pendingRequests().map(\.id))
        XCTAssertEqual(pending.intersection(plans.map(\.id)).count, plans.count - book.records.values.filter { $0.state == .held }.count)
        await client.shutdown()
    }
}
