import BuzzServer
import Foundation
import XCTest

/// One deadline for every part of a process: however many services it runs, it is gone
/// within the grace period; one that fails takes the others down cleanly.
final class ServiceGroupTests: XCTestCase {
    /// A service that works until shut down and then needs `drain` seconds (or fails at once).
    final class FakeService: Service, @unchecked Sendable {
        let name: String
        let drain: TimeInterval
        let failure: (any Error)?
        private let request = ShutdownRequest()
        private let lock = NSLock()
        private var deadlines: [Date] = []

        init(_ name: String, drain: TimeInterval = 0, failure: (any Error)? = nil) {
            self.name = name
            self.drain = drain
            self.failure = failure
        }

        func run() throws {
            if let failure { throw failure }
            let deadline = request.wait()
            // Drains for `drain` seconds, but never past the deadline.
            Thread.sleep(forTimeInterval: min(drain, max(0, deadline.timeIntervalSinceNow)))
        }

        func shutdown(deadline: Date) {
            lock.withLock { deadlines.append(deadline) }
            request.request(by: deadline)
        }

        var toldToStop: [Date] { lock.withLock { deadlines } }
    }

    struct Broken: Error {}

    func testEveryServiceGetsTheSameDeadlineAndTheGroupEndsWithinTheGrace() throws {
        let services = [FakeService("api", drain: 0.2), FakeService("workers", drain: 0.6), FakeService("scheduler", drain: 5)]
        let group = ServiceGroup(services, grace: 1, log: Log(format: .json, component: "test"))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { group.requestShutdown(reason: "test") }
        var cleanupDeadline: Date?
        let started = Date()
        try group.run(handlesSignals: false) { cleanupDeadline = $0 }
        let took = Date().timeIntervalSince(started)
        let deadlines = services.flatMap(\.toldToStop)
        XCTAssertEqual(deadlines.count, 3, "each told once")
        XCTAssertEqual(Set(deadlines).count, 1, "one deadline for all")
        XCTAssertEqual(cleanupDeadline, deadlines.first, "cleanup gets the same deadline, not a grace of its own")
        XCTAssertLessThan(took, 0.2 + 1 + 0.3, "over by the grace after the request, although one service wanted 5 s")
        XCTAssertGreaterThan(took, 0.2 + 0.6, "waited for the services that drain within the grace")
    }

    func testAFailingServiceStopsTheOthersAndIsReported() {
        let healthy = FakeService("workers", drain: 0.1)
        let group = ServiceGroup([healthy, FakeService("api", failure: Broken())], grace: 2, log: Log(format: .json, component: "test"))
        XCTAssertThrowsError(try group.run(handlesSignals: false)) { XCTAssertTrue($0 is Broken) }
        XCTAssertEqual(healthy.toldToStop.count, 1, "the healthy service was shut down, not left running")
    }
}
