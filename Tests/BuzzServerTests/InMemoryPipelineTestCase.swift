import XCTest
@testable import BuzzServer

/// A test case over a fresh ``InMemoryPipeline`` with the leg-day workflow.
class InMemoryPipelineTestCase: XCTestCase {
    var pipeline: InMemoryPipeline!

    override func setUpWithError() throws {
        pipeline = InMemoryPipeline()
        try pipeline.addWorkflow(InMemoryPipeline.legDay)
    }
}
