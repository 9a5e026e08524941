import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit

final class SystemClockTests: XCTestCase {
    /// A wait for the gate with no deadline once slept until `Date.distantFuture`, whose
    /// nanoseconds overflow: the 10,000-phone fleet's simulator trapped. It must wait, and stop
    /// when cancelled.
    func testASleepUntilTheDistantFutureWaitsAndCanBeCancelled() async throws {
        let clock = SystemClock(timeZone: TimeZone(identifier: "UTC")!)
        let sleeper = Task { try await clock.sleep(until: .distantFuture) }
        try await Task.sleep(nanoseconds: 50_000_000)
        sleeper.cancel()
        do {
            try await sleeper.value
            XCTFail("it returned before it was cancelled")
        } catch is CancellationError {}
    }
}
