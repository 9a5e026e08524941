import BuzzServer
import XCTest

/// A test case over a fresh ``PipelineHarness`` (every worker and the scheduler, on its own
/// schema and queues) with the leg-day workflow stored, shut down after each test. The
/// counterpart of ``APITestCase`` for tests that need no HTTP.
class PipelineTestCase: XCTestCase {
    var pipeline: PipelineHarness!

    override func setUpWithError() throws {
        pipeline = try PipelineHarness()
        try pipeline.putLegDay()
    }

    override func tearDown() { pipeline?.shutdown() }
}
