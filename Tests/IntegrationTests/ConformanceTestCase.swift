import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import XCTest

/// What every conformance suite shares: the drivers, and a fresh tenant with the leg-day
/// workflow on each.
class ConformanceTestCase: XCTestCase {
    /// The drivers, by name.
    let drivers: [(name: String, make: () throws -> StoreDriver)] = [
        ("in-memory", { InMemoryStoreDriver() }),
        ("postgres", { try PostgresStoreDriver() }),
    ]

    /// A tenant with the leg-day workflow on one driver.
    struct Scenario {
        let driver: StoreDriver
        let tenantId: String
        let workflow: WorkflowRecord
        let now = Date(timeIntervalSince1970: 1_796_029_200)  // 2026-11-30T09:00:00Z

        var store: any Store { driver.store }

        /// A started run of a subscriber with `devices` phones, stored; with its plan's local id.
        func storedRun(_ subscriber: String, devices: Int) throws -> (run: RunRecord, devices: [DeviceRecord], localId: String) {
            let phones = try driver.subscriber(tenantId: tenantId, id: subscriber, devices: devices)
            let run = startedRun(subscriber)
            // Its plan too: acknowledgments are stored only for a plan of their subscriber.
            var fresh = RunState(workflow: workflow.definition, trigger: run.state.trigger, context: RunContext(runId: run.id.uuidString.lowercased()))
            let plans = fresh.handle(.start, now: now).compactMap { action -> LocalPlanDelivery? in
                if case .sendLocalPlan(let delivery) = action { return delivery } else { return nil }
            }
            try store.transaction { tx in
                try tx.insertRun(run)
                try tx.recordPlans(plans.map { SentPlan(tenantId: tenantId, subscriberId: subscriber, delivery: $0) }, at: now)
            }
            return (run, phones, run.id.uuidString.lowercased() + "/nudge")
        }

        /// u1's stored run with one phone, registered by the app's install `installId`, that
        /// acknowledged the run's plan.
        func acknowledgedRun(installId: String) throws -> (run: RunRecord, device: DeviceRecord, localId: String) {
            let (run, devices, localId) = try storedRun("u1", devices: 1)
            var device = devices[0]
            device.installId = installId
            _ = try driver.directory.putDevice(device)
            let word = DeviceAcknowledgment(subscriberId: "u1", localId: localId, device: device.token, messageId: nil, kind: .scheduled, at: now)
            try store.transaction { tx in _ = try tx.recordAcknowledgments(tenantId: tenantId, [word], at: now) }
            return (run, device, localId)
        }

        /// How many of u1's devices hold the plan `localId` of `run` by the acknowledgments table.
        func holders(of localId: String, in run: RunRecord) throws -> Int {
            try store.transaction { tx in
                (try tx.acknowledgments(tenantId: tenantId, windows: [WindowKey(subscriberId: "u1", runId: run.id, localId: localId)])[run.id] ?? []).count
            }
        }

        /// A leg-day run of `subscriber`, started (waiting for its moment an hour from now).
        func startedRun(_ subscriber: String) -> RunRecord {
            let id = UUID()
            let trigger = BuzzEvent(event: "workout.scheduled", subscriberId: subscriber,
                                    properties: ["at": .string(ISO8601DateFormatter().string(from: now.addingTimeInterval(3600))), "workoutId": "w1"],
                                    timestamp: now)
            var state = RunState(workflow: workflow.definition, trigger: trigger, context: RunContext(runId: id.uuidString.lowercased()))
            _ = state.handle(.start, now: now)
            return RunRecord(id: id, tenantId: tenantId, workflowKey: workflow.key, workflowVersion: workflow.version, subscriberId: subscriber,
                             dryRun: false, state: state)
        }
    }

    /// Runs `body` once per driver, each on a fresh tenant; failures carry the driver's name.
    func eachDriver(_ body: (Scenario) throws -> Void) throws {
        for (name, make) in drivers {
            let driver = try make()
            defer { driver.close() }
            let tenantId = try driver.tenant()
            let scenario = Scenario(driver: driver, tenantId: tenantId, workflow: try driver.workflow(tenantId: tenantId, source: PipelineHarness.legDay))
            let failuresBefore = testRun?.totalFailureCount ?? 0
            do {
                try body(scenario)
            } catch {
                XCTFail("\(name): \(error)")
            }
            if (testRun?.totalFailureCount ?? 0) > failuresBefore { XCTFail("the failures above are the \(name) driver's") }
        }
    }

    static func newToken() -> String {
        (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
    }
}
