import BuzzServer
import XCTest

/// A test case with the real API over an isolated schema and queue prefix, the leg-day
/// workflow stored, shut down after each test. Subclasses choose the harness
/// (``makeHarness()``) and add their own data in ``prepare()``.
class APITestCase: XCTestCase {
    var api: APIHarness!
    var pipeline: PipelineHarness { api.pipeline }

    /// The API and pipeline a test runs against (default: every worker and the scheduler).
    func makeHarness() throws -> APIHarness { try APIHarness() }

    /// What every test of the class needs beyond the leg-day workflow.
    func prepare() throws {}

    override func setUpWithError() throws {
        api = try makeHarness()
        try pipeline.putLegDay()
        try prepare()
    }

    override func tearDown() { api?.shutdown() }
}
