import BuzzKitWire
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// Coming to the foreground syncs at most once a minute: a person switching between apps does
/// not send a `GET /plans` each time. A push still syncs whenever it comes.
final class ForegroundSyncThrottleTests: XCTestCase {
    func testForegroundingSyncsAtMostOnceAMinuteAndAPushAlways() async throws {
        let phone = try await TestPhone()
        let launched = phone.transport.syncRequests.count
        XCTAssertGreaterThan(launched, 0, "the launch synced")
        for _ in 0..<3 {
            await phone.client.applicationDidEnterBackground()
            _ = try await phone.advance(5)
            await phone.client.applicationDidBecomeActive()
        }
        XCTAssertEqual(phone.transport.syncRequests.count, launched, "back within the minute: no sync")
        await phone.client.applicationDidEnterBackground()
        _ = try await phone.advance(60)
        await phone.client.applicationDidBecomeActive()
        XCTAssertEqual(phone.transport.syncRequests.count, launched + 1, "a minute later: one")
        _ = await phone.client.handleRemoteNotification(payload: Payloads.plan("run-1/a", fireAt: phone.fireAt(in: 600)))
        await phone.client.settle()
        XCTAssertEqual(phone.transport.syncRequests.count, launched + 2, "a push syncs whatever the time")
    }
}
