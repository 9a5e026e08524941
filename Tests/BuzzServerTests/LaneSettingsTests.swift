import BuzzEngine
import BuzzKitWire
import Foundation
import BuzzServerTesting
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

/// Which queue each message of a run takes, how a bulk consumer paces itself while
/// interactive work waits, and how the settings are read.
final class LaneSettingsTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_796_029_200)

    /// The plan a run due in `seconds` sends, and the cancel it sends when cancelled then.
    func messages(dueIn seconds: TimeInterval) throws -> (plan: PipelineMessage, cancel: PipelineMessage) {
        let workflow = try WorkflowDefinition.parse(try JSONParser.parse(Data("""
            {"key":"r","trigger":{"event":"r.set"},"steps":[{"name":"w","waitUntil":{"at":"{{trigger.at}}"}},
             {"name":"n","send":{"deliver":"local","title":"t","body":"b"}}]}
            """.utf8)))
        var state = RunState(workflow: workflow, trigger: BuzzEvent(event: "r.set", subscriberId: "u",
                                                                       properties: ["at": .string(RFC3339.format(now.addingTimeInterval(seconds)))], timestamp: now),
                             context: RunContext(runId: UUID().uuidString.lowercased(), dryRun: false, hasSubscriber: true, subscriberTimeZone: "UTC",
                                                 tenantDefaultTimeZone: nil, quietHours: nil))
        var plan: PipelineMessage?, cancel: PipelineMessage?
        for case .sendLocalPlan(let delivery) in state.handle(.start, now: now) {
            plan = .sendPlan(tenantId: "t", runId: UUID(), subscriberId: "u", delivery: delivery)
        }
        for case .sendCancel(let delivery) in state.handle(.cancel, now: now) {
            cancel = .sendCancel(tenantId: "t", runId: UUID(), subscriberId: "u", delivery: delivery)
        }
        return (try XCTUnwrap(plan, "the workflow plans"), try XCTUnwrap(cancel, "a cancel follows a sent plan"))
    }

    func plan(dueIn seconds: TimeInterval) throws -> PipelineMessage { try messages(dueIn: seconds).plan }

    func testABulkRunsFarPlansAndWaitsTakeTheBulkLaneAndEverythingUrgentStaysInteractive() throws {
        let lanes = LaneSettings()
        XCTAssertEqual(lanes.queue(of: try plan(dueIn: 3600), bulk: true, now: now), .planDispatchBulk)
        XCTAssertEqual(lanes.queue(of: try plan(dueIn: 300), bulk: true, now: now), .planDispatch, "due within the urgent horizon")
        XCTAssertEqual(lanes.queue(of: try plan(dueIn: 3600), bulk: false, now: now), .planDispatch, "an interactive run's plan")
        let wait = RunTimer(runId: "r", generation: 1, stepPath: StepPath(root: 0), purpose: .waitEnds, at: now)
        let window = RunTimer(runId: "r", generation: 1, stepPath: StepPath(root: 0), purpose: .localWindowDue, at: now)
        XCTAssertEqual(lanes.queue(of: .timer(tenantId: "t", runId: UUID(), timer: wait), bulk: true, now: now), .planDispatchBulk)
        XCTAssertEqual(lanes.queue(of: .timer(tenantId: "t", runId: UUID(), timer: window), bulk: true, now: now), .fallbackCheck,
                       "the moment's check has one lane")
        XCTAssertEqual(lanes.queue(of: try messages(dueIn: 3600).cancel, bulk: true, now: now), .planDispatch, "a cancel never waits behind a campaign")
    }

    func testEachLaneHasItsQueuesAndPartners() {
        XCTAssertEqual(Topology.Queue.allCases.filter { $0.lane == .bulk }, [.triggerBulk, .planDispatchBulk])
        XCTAssertEqual(Topology.Queue.triggerBulk.interactivePartner, .trigger)
        XCTAssertEqual(Topology.Queue.planDispatch.inLane(.bulk), .planDispatchBulk)
        XCTAssertEqual(Topology.Queue.ackIngest.inLane(.bulk), .ackIngest)
        XCTAssertEqual(Topology(prefix: "x.").eventsExchange(.bulk), "x.buzzkit.events.bulk")
    }

    func testABulkConsumerWorksAtMostItsShareWhileInteractiveWorkWaits() {
        XCTAssertEqual(LaneGate.pause(afterBusy: 0.05, share: 0.2), 0.2, accuracy: 1e-9, "busy 50 ms, then 200 ms aside: 20 %")
        XCTAssertEqual(LaneGate.pause(afterBusy: 10, share: 0.2), 2, "a slow batch does not park the consumer for long")
        XCTAssertEqual(LaneGate.pause(afterBusy: 0.05, share: 1), 0)
        let waiting = LockedCount(3)
        let gate = LaneGate(share: 0.2, partner: .trigger, broker: InMemoryBroker()) { waiting.value }
        XCTAssertEqual(gate.yield(afterBusy: 0.05) { false }, 0.2, accuracy: 0.1, "paused while the partner has work")
        waiting.value = 0
        let started = Date()
        XCTAssertEqual(gate.yield(afterBusy: 0.05) { false }, 0, accuracy: 0.05, "nothing waiting here or in the broker: full speed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
        waiting.value = 3
        XCTAssertEqual(gate.yield(afterBusy: 0.05) { true }, 0, accuracy: 0.05, "a stopping worker does not wait")
    }

    func testSettingsAreReadFromTheEnvironmentAndAWrongOneIsNamed() throws {
        let read = try Configuration(environment: ["BUZZKIT_LANE_BULK_SHARE": "0.5", "BUZZKIT_LANE_URGENT_PLAN_SECONDS": "120"])
        XCTAssertEqual(read.lanes.bulkShare, 0.5)
        XCTAssertEqual(read.lanes.urgentPlanSeconds, 120)
        for (key, value) in [("BUZZKIT_LANE_BULK_SHARE", "0"), ("BUZZKIT_LANE_INTERACTIVE_EVENT_BURST", "10"), ("BUZZKIT_LANE_PLAN_MINIMUM_LEAD_SECONDS", "soon")] {
            XCTAssertThrowsError(try Configuration(environment: [key: value])) { error in
                XCTAssertEqual((error as? ServerError)?.field, key)
            }
        }
    }
}

/// A counter shared with a closure.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int
    init(_ value: Int) { stored = value }
    var value: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
