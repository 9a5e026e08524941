import BuzzTesting
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

/// A test case over a fresh ``InMemoryPipeline`` with the leg-day workflow.
class InMemoryPipelineTestCase: XCTestCase {
    var pipeline: InMemoryPipeline!

    override func setUpWithError() throws {
        pipeline = InMemoryPipeline()
        try pipeline.addWorkflow(LegDay.text())
    }
}
