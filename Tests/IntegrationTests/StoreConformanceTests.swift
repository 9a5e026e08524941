import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// One suite for every driver of the ``Store`` port: the in-memory store the stage tests run
/// on must behave as PostgreSQL does, or those tests prove nothing. Every test runs against
/// each driver in turn (``ConformanceTestCase``; a failure names the driver).
final class StoreConformanceTests: ConformanceTestCase {
    func testARunIsInsertedOnceAndLockedOnlyForItsOwnTenant() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            let (a, b) = (s.startedRun("u1"), s.startedRun("u1"))
            try s.store.transaction { try $0.insertRuns([a, b]) }
            XCTAssertThrowsError(try s.store.transaction { try $0.insertRun(a) }, "the same run twice")
            try s.store.transaction { tx in
                let locked = try XCTUnwrap(try tx.lockRun(a.id))
                XCTAssertEqual([locked.tenantId, locked.workflowKey, locked.subscriberId], [s.tenantId, "leg-day", "u1"])
                XCTAssertEqual(locked.state.status, a.state.status)
                XCTAssertNotNil(try tx.lockRun(a.id, tenantId: s.tenantId))
                XCTAssertNil(try tx.lockRun(a.id, tenantId: "t_someone_else"), "another tenant's run is never handed out")
                XCTAssertEqual(Set(try tx.lockRuns([b.id, a.id, UUID()]).map(\.id)), [a.id, b.id], "the ones that exist")
            }
        }
    }

    func testRunsRecordedTogetherKeepEachTheirOwnCancellingEvents() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            // A second workflow that only a page view cancels, its runs recorded between leg day's.
            guard case .object(var root) = PipelineHarness.legDay else { return XCTFail("leg day is an object") }
            root["key"] = "reading"
            root["cancelOn"] = .array([.object(["event": "page.viewed"])])
            let reading = try s.driver.workflow(tenantId: s.tenantId, source: .object(root))
            var other = s.startedRun("u1")
            other.workflowKey = reading.key
            other.workflowVersion = reading.version
            other.state = RunState(workflow: reading.definition, trigger: other.state.trigger, context: other.state.context)
            _ = other.state.handle(.start, now: s.now)
            let (first, last) = (s.startedRun("u1"), s.startedRun("u1"))
            XCTAssertEqual([first, other, last].map(\.cancelEvents), [["workout.completed", "workout.moved"], ["page.viewed"], ["workout.completed", "workout.moved"]])
            try s.store.transaction { try $0.insertRuns([first, other, last]) }
            try s.store.transaction { tx in
                XCTAssertEqual(Set(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1", cancelEvent: "workout.moved")), [first.id, last.id])
                XCTAssertEqual(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1", cancelEvent: "page.viewed"), [other.id],
                               "each run keeps its own workflow's cancelling events")
            }
        }
    }

    func testACancelledRunIsNoLongerOpenToItsCancelEvents() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            var run = s.startedRun("u1")
            let other = s.startedRun("u1")
            try s.store.transaction { try $0.insertRuns([run, other]) }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.cancelledRuns([run.id, other.id]), [], "both still live: their plans may go out")
                XCTAssertEqual(Set(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1", cancelEvent: "workout.completed")), [run.id, other.id])
                XCTAssertEqual(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1", cancelEvent: "page.viewed"), [])
                XCTAssertEqual(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u2", cancelEvent: "workout.completed"), [], "another subscriber's")
            }
            _ = run.state.handle(.event(BuzzEvent(event: "workout.completed", subscriberId: "u1", timestamp: s.now)), now: s.now)
            XCTAssertTrue(run.state.status.isFinal)
            try s.store.transaction { try $0.updateRun(run) }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.lockRun(run.id)?.state.status, run.state.status, "read back as written")
                XCTAssertEqual(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1", cancelEvent: "workout.completed"), [other.id], "finished runs cannot be cancelled")
                let gone = UUID()
                XCTAssertEqual(try tx.cancelledRuns([other.id, run.id, gone]), [run.id, gone], "a held-up plan of a cancelled or vanished run is not sent")
            }
        }
    }

    func testACancelMarkKeepsTheLatestEventPerSubscriberAndNameAndABulkRunStaysBulk() throws {
        try eachDriver { s in
            let other = try s.driver.tenant()
            let (early, late) = (s.now.addingTimeInterval(-60), s.now.addingTimeInterval(-1))
            try s.store.transaction { tx in
                try tx.recordCancelMarks(tenantId: s.tenantId, [
                    CancelMark(subscriberId: "u1", event: "workout.completed", at: late, properties: ["workoutId": "w2"]),
                    CancelMark(subscriberId: "u1", event: "workout.completed", at: early, properties: ["workoutId": "w1"]),
                    CancelMark(subscriberId: "u2", event: "workout.moved", at: early, properties: [:]),
                ])
                try tx.recordCancelMarks(tenantId: other, [CancelMark(subscriberId: "u1", event: "workout.completed", at: s.now, properties: [:])])
            }
            try s.store.transaction { tx in
                // An older event arriving afterwards never replaces a newer mark.
                try tx.recordCancelMarks(tenantId: s.tenantId, [CancelMark(subscriberId: "u1", event: "workout.completed", at: early, properties: [:])])
                let marks = try tx.cancelMarks(tenantId: s.tenantId, subscriberIds: ["u1", "u3"], pendingOnly: false)
                XCTAssertEqual(marks.count, 1, "one mark per subscriber and name, of this tenant only")
                XCTAssertEqual(marks.first?.properties, ["workoutId": "w2"])
                XCTAssertEqual(marks.first.map { abs($0.at.timeIntervalSince(late)) < 0.001 }, true)
            }
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            var run = s.startedRun("u1")
            run.bulk = true
            try s.store.transaction { try $0.insertRuns([run, s.startedRun("u1")]) }
            try s.store.transaction { tx in XCTAssertEqual(try tx.lockRun(run.id)?.bulk, true, "read back as written") }
        }
    }

    func testAnAcceptedCancelStaysPendingUntilItsEventOrALaterOneIsHandledAndItsRunsSayIt() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u2", devices: 1)
            let (mine, theirs) = (s.startedRun("u1"), s.startedRun("u2"))
            try s.store.transaction { try $0.insertRuns([mine, theirs]) }
            let (early, accepted, later) = (s.now.addingTimeInterval(-60), s.now.addingTimeInterval(-1), s.now)
            func mark(_ at: Date, pending: Bool, workoutId: JSONValue = "w1") -> CancelMark {
                CancelMark(subscriberId: "u1", event: "workout.completed", at: at, properties: ["workoutId": workoutId], pending: pending)
            }
            func pendingNow() throws -> (marks: [CancelMark], heads: [UUID: Bool]) {
                try s.store.transaction { tx in
                    (try tx.cancelMarks(tenantId: s.tenantId, subscriberIds: ["u1", "u2"], pendingOnly: true),
                     Dictionary(uniqueKeysWithValues: try tx.lockRunHeads([mine.id, theirs.id]).map { ($0.id, $0.cancelPending) }))
                }
            }
            try s.store.transaction { try $0.recordCancelMarks(tenantId: s.tenantId, [mark(accepted, pending: true)]) }
            var found = try pendingNow()
            XCTAssertEqual(found.marks.map(\.pending), [true], "the API's mark waits for the trigger stage")
            XCTAssertEqual(found.heads, [mine.id: true, theirs.id: false], "only the run its subscriber's rule names must be loaded")
            try s.store.transaction { try $0.recordCancelMarks(tenantId: s.tenantId, [mark(early, pending: false, workoutId: "w0")]) }
            found = try pendingNow()
            XCTAssertEqual(found.marks.map(\.properties), [["workoutId": "w1"]], "an earlier event handled leaves the accepted one pending")
            try s.store.transaction { try $0.recordCancelMarks(tenantId: s.tenantId, [mark(accepted, pending: false)]) }
            found = try pendingNow()
            XCTAssertEqual(found.marks, [], "handled")
            XCTAssertEqual(found.heads, [mine.id: false, theirs.id: false])
            // Accepted out of order: an event older than the handled one is pending still, and
            // the mark keeps the newer event's time and properties.
            try s.store.transaction { try $0.recordCancelMarks(tenantId: s.tenantId, [mark(early, pending: true, workoutId: "w0")]) }
            found = try pendingNow()
            XCTAssertEqual(found.marks.map(\.properties), [["workoutId": "w1"]])
            XCTAssertEqual(found.heads[mine.id], true)
            try s.store.transaction { try $0.recordCancelMarks(tenantId: s.tenantId, [mark(later, pending: false, workoutId: "w2")]) }
            XCTAssertEqual(try pendingNow().marks, [], "a later event of the name handled settles the earlier ones")
        }
    }

    func testRunSearchPagesNewestFirstWithItsFiltersAndErasureTakesTheSubscribersRuns() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 2)
            var runs: [RunRecord] = []
            for subscriber in ["u1", "u2", "u1", "u1"] {
                let run = s.startedRun(subscriber)
                try s.store.transaction { try $0.insertRun(run) }
                runs.append(run)
                Thread.sleep(forTimeInterval: 0.002)  // distinct creation times
            }
            try s.store.transaction { tx in
                let first = try tx.runs(tenantId: s.tenantId, RunQuery(subscriberId: "u1", limit: 2))
                XCTAssertEqual(first.map(\.run.id), [runs[3].id, runs[2].id], "newest first")
                let second = try tx.runs(tenantId: s.tenantId, RunQuery(subscriberId: "u1", after: first.last?.cursor, limit: 2))
                XCTAssertEqual(second.map(\.run.id), [runs[0].id], "the rest after the cursor")
                XCTAssertEqual(try tx.runs(tenantId: s.tenantId, RunQuery(limit: 10)).count, 4)
                XCTAssertEqual(try tx.runs(tenantId: s.tenantId, RunQuery(workflowKey: "other", limit: 10)).count, 0)
                XCTAssertEqual(try tx.runs(tenantId: s.tenantId, RunQuery(status: "waiting", limit: 10)).count, 4)
                XCTAssertEqual(try tx.runs(tenantId: "t_someone_else", RunQuery(limit: 10)).count, 0)
                XCTAssertEqual(Set(try tx.openRuns(tenantId: s.tenantId, subscriberId: "u1")), [runs[0].id, runs[2].id, runs[3].id])
            }
            try s.store.transaction { try $0.eraseSubscriber(tenantId: s.tenantId, subscriberId: "u1", at: s.now) }
            try s.store.transaction { tx in
                XCTAssertNil(try tx.subscriber(tenantId: s.tenantId, id: "u1"))
                XCTAssertEqual(try tx.activeDevices(tenantId: s.tenantId, subscriberId: "u1").count, 0)
                XCTAssertEqual(try tx.runs(tenantId: s.tenantId, RunQuery(subscriberId: "u1", limit: 10)).count, 0, "its runs are gone")
                XCTAssertEqual(try tx.runs(tenantId: s.tenantId, RunQuery(limit: 10)).count, 1, "another subscriber's stays")
            }
        }
    }

    func testEventIdsAreDeduplicatedWithinATenant() throws {
        try eachDriver { s in
            let other = try s.driver.tenant()
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.markEventsProcessed(tenantId: s.tenantId, eventIds: ["id:a", "id:b"], at: s.now), ["id:a", "id:b"])
                XCTAssertEqual(try tx.markEventsProcessed(tenantId: s.tenantId, eventIds: ["id:b", "id:c"], at: s.now), ["id:c"])
                XCTAssertEqual(try tx.markEventsProcessed(tenantId: other, eventIds: ["id:a"], at: s.now), ["id:a"], "another tenant's ids are its own")
            }
        }
    }

    /// A trigger batch records its plans in one statement: each reads back with its own body,
    /// and the same batch again changes nothing.
    func testPlansRecordedTogetherReadBackEachWithItsOwnBody() throws {
        try eachDriver { s in
            var runs: [RunRecord] = [], sent: [SentPlan] = []
            for subscriber in ["u1", "u2", "u3"] {
                _ = try s.driver.subscriber(tenantId: s.tenantId, id: subscriber, devices: 1)
                let run = s.startedRun(subscriber)
                var fresh = RunState(workflow: s.workflow.definition, trigger: run.state.trigger, context: RunContext(runId: run.id.uuidString.lowercased()))
                for case .sendLocalPlan(let delivery) in fresh.handle(.start, now: s.now) {
                    sent.append(SentPlan(tenantId: s.tenantId, subscriberId: subscriber, delivery: delivery))
                }
                runs.append(run)
            }
            XCTAssertEqual(sent.count, 3)
            try s.store.transaction { tx in
                for run in runs { try tx.insertRun(run) }
                try tx.recordPlans(sent, at: s.now)
            }
            try s.store.transaction { tx in try tx.recordPlans(sent, at: s.now) }
            let payloads = try s.store.transaction { tx in try tx.planPayloads(tenantId: s.tenantId, localIds: sent.map(\.delivery.localId)) }
            XCTAssertEqual(payloads.count, 3)
            for plan in sent {
                let stored = try payloads[plan.delivery.localId].map { try JSONSerialization.jsonObject(with: $0) as? NSDictionary }
                XCTAssertEqual(stored, try JSONSerialization.jsonObject(with: Data(plan.delivery.body.utf8)) as? NSDictionary)
            }
        }
    }

    func testEachDeviceKeepsItsLatestWordOnAPlanAndOnlyActiveDevicesCount() throws {
        try eachDriver { s in
            let (run, devices, localId) = try s.storedRun("u1", devices: 2)
            func word(_ device: String, _ kind: DeviceAcknowledgment.Kind, _ seconds: TimeInterval) -> DeviceAcknowledgment {
                DeviceAcknowledgment(subscriberId: "u1", localId: localId, device: device, messageId: nil, kind: kind, at: s.now.addingTimeInterval(seconds))
            }
            try s.store.transaction { tx in
                let first = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(devices[0].token, .scheduled, 1), word(devices[1].token, .scheduled, 1)], at: s.now)
                XCTAssertEqual(first.acknowledged, 2)
                let repeated = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(devices[0].token, .scheduled, 1)], at: s.now)
                XCTAssertEqual(repeated.acknowledged, 0, "a repeat moves nothing")
                let released = try tx.recordAcknowledgments(tenantId: s.tenantId, [word(devices[1].token, .released, 2)], at: s.now)
                XCTAssertEqual(released.released, 1)
                try tx.deactivateDevice(devices[0].id, reason: "Unregistered", at: s.now, deadSince: nil)
            }
            try s.store.transaction { tx in
                let holdings = try tx.acknowledgments(tenantId: s.tenantId, windows: [WindowKey(subscriberId: "u1", runId: run.id, localId: localId)])[run.id] ?? []
                let byDevice = Dictionary(uniqueKeysWithValues: holdings.map { ($0.device, $0) })
                XCTAssertEqual(byDevice.count, 2)
                XCTAssertEqual(byDevice[devices[0].token]?.deviceCounts, false, "a deactivated device no longer counts")
                XCTAssertEqual(byDevice[devices[1].token]?.deviceCounts, true)
                XCTAssertNotNil(byDevice[devices[1].token]?.releasedAt)
                XCTAssertNil(byDevice[devices[0].token]?.releasedAt)
                XCTAssertEqual(try tx.activeDevices(tenantId: s.tenantId, subscriberId: "u1").map(\.id), [devices[1].id])
            }
        }
    }

    /// A phone can only acknowledge its own subscriber's plans: a word naming another
    /// subscriber's plan, or a made-up local id, stores nothing (no row to grow or to sweep).
    func testAnAcknowledgmentOfAPlanNotTheSubscribersStoresNothing() throws {
        try eachDriver { s in
            let (run, devices, localId) = try s.storedRun("u1", devices: 1)
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u2", devices: 1)
            func word(_ subscriber: String, _ local: String) -> DeviceAcknowledgment {
                DeviceAcknowledgment(subscriberId: subscriber, localId: local, device: devices[0].token, messageId: nil, kind: .scheduled, at: s.now)
            }
            try s.store.transaction { tx in
                let made = try tx.recordAcknowledgments(tenantId: s.tenantId, [word("u2", localId), word("u1", "\(UUID().uuidString.lowercased())/anything")], at: s.now)
                XCTAssertEqual(made.acknowledged, 0)
                XCTAssertEqual(try tx.recordAcknowledgments(tenantId: s.tenantId, [word("u1", localId)], at: s.now).acknowledged, 1, "its own plan")
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.acknowledgments(tenantId: s.tenantId, windows: [WindowKey(subscriberId: "u2", runId: run.id, localId: localId)])[run.id] ?? [], [])
                XCTAssertEqual((try tx.acknowledgments(tenantId: s.tenantId, windows: [WindowKey(subscriberId: "u1", runId: run.id, localId: localId)])[run.id] ?? []).count, 1)
            }
        }
    }

    /// A new install of the app on a token (the old one deleted, its local notifications with
    /// it) retires what the old install acknowledged for open runs' windows; the same install
    /// registering again keeps it.
    func testANewInstallOnATokenRetiresItsAcknowledgmentsOfOpenRuns() throws {
        try eachDriver { s in
            let (run, acknowledging, localId) = try s.acknowledgedRun(installId: "install-a")
            var device = acknowledging
            func held() throws -> Int { try s.holders(of: localId, in: run) }
            XCTAssertEqual(try held(), 1)
            _ = try s.driver.directory.putDevice(device)
            XCTAssertEqual(try held(), 1, "the same install registering again")
            device.installId = "install-b"
            _ = try s.driver.directory.putDevice(device)
            XCTAssertEqual(try held(), 0, "a new install: the deleted app's notification went with it")
        }
    }

    /// An acknowledgment of a plan whose run was cancelled is not counted, and the outcome names
    /// it (the API tells the phone to drop the plan: its cancel push may never arrive).
    func testAnAcknowledgmentOfACancelledRunsPlanIsNamedNotCounted() throws {
        try eachDriver { s in
            var (run, devices, localId) = try s.storedRun("u1", devices: 1)
            _ = run.state.handle(.cancel, now: s.now)
            try s.store.transaction { tx in try tx.updateRun(run) }
            let word = DeviceAcknowledgment(subscriberId: "u1", localId: localId, device: devices[0].token, messageId: nil, kind: .scheduled, at: s.now)
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.recordAcknowledgments(tenantId: s.tenantId, [word], at: s.now), AcknowledgmentOutcome(cancelled: [localId]))
                XCTAssertEqual((try tx.acknowledgments(tenantId: s.tenantId, windows: [WindowKey(subscriberId: "u1", runId: run.id, localId: localId)])[run.id] ?? []).count, 0)
            }
        }
    }

    /// A chosen button and an open are recorded for a message of the subscriber's run only, once
    /// per repeat, and read back with the run's activity (the step's `actions` and `opened`).
    func testButtonsAndOpensAreRecordedForTheSubscribersOwnMessagesOnly() throws {
        try eachDriver { s in
            let (run, devices, localId) = try s.storedRun("u1", devices: 1)
            let request = DeliveryRequest(tenantId: s.tenantId, runId: run.id, idempotencyKey: localId, deviceId: devices[0].id, kind: "plan", messageId: "m1")
            try s.store.transaction { tx in
                _ = try tx.claimDeliveries([request], at: s.now)
                try tx.recordAction(tenantId: s.tenantId, subscriberId: "u1", messageId: "m1", actionId: "done", at: s.now)
                try tx.recordAction(tenantId: s.tenantId, subscriberId: "u1", messageId: "m1", actionId: "done", at: s.now)  // a retry
                try tx.recordAction(tenantId: s.tenantId, subscriberId: "u2", messageId: "m1", actionId: "snooze", at: s.now)  // not u2's
                try tx.recordOpen(tenantId: s.tenantId, subscriberId: "u1", messageId: "m1", at: s.now.addingTimeInterval(1))
            }
            let activity = try s.store.transaction { tx in try tx.activity(tenantId: s.tenantId, runIds: [run.id])[run.id] }
            XCTAssertEqual(activity?.actions, [RunActivity.Action(messageId: "m1", taken: RunSummary.ActionTaken(actionId: "done", at: s.now))])
            XCTAssertEqual(activity?.opens.map(\.messageId), ["m1"])
            XCTAssertEqual(activity?.opened?.messageId, "m1")
        }
    }

    /// A new install naming the install it replaced on the phone (under another token) retires
    /// that install's devices and what they acknowledged for open runs; another tenant's device
    /// with the same install id is untouched.
    func testAReplacedInstallRetiresItsDevicesAndAcknowledgments() throws {
        try eachDriver { s in
            let (run, old, localId) = try s.acknowledgedRun(installId: "install-a")
            let other = try s.driver.directory.createTenant(name: "other")
            _ = try s.driver.directory.putDevice(DeviceRecord(tenantId: other.tenantId, subscriberId: "u1", token: old.token, topic: old.topic,
                                                              installId: "install-a"))
            let new = DeviceRecord(tenantId: s.tenantId, subscriberId: "u1", token: String(repeating: "cd", count: 32), topic: old.topic,
                                   installId: "install-b")
            _ = try s.driver.directory.putDevice(new, maxActive: 10, replacing: "install-a")
            XCTAssertEqual(try s.holders(of: localId, in: run), 0)
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.activeDevices(tenantId: s.tenantId, subscriberId: "u1").map(\.token), [new.token])
                XCTAssertEqual(try tx.activeDevices(tenantId: other.tenantId, subscriberId: "u1").map(\.token), [old.token], "another tenant's")
            }
        }
    }

    /// APNs' 410 says when it last found the token dead: a device registered after that
    /// instant (the app re-registered the same token) stays active; one registered before goes.
    func testA410OlderThanTheDevicesRegistrationLeavesItActive() throws {
        try eachDriver { s in
            let (_, devices, _) = try s.storedRun("u1", devices: 2)
            try s.store.transaction { tx in
                try tx.deactivateDevice(devices[0].id, reason: "Unregistered", at: s.now, deadSince: s.now.addingTimeInterval(-86_400))
                try tx.deactivateDevice(devices[1].id, reason: "Unregistered", at: s.now, deadSince: Date().addingTimeInterval(86_400))
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.activeDevices(tenantId: s.tenantId, subscriberId: "u1").map(\.id), [devices[0].id])
            }
        }
    }

    func testADeliveryIsClaimedOnceAndAgainOnlyAfterItFailed() throws {
        try eachDriver { s in
            let (run, devices, localId) = try s.storedRun("u1", devices: 3)
            let requests = devices.map { DeliveryRequest(tenantId: s.tenantId, runId: run.id, idempotencyKey: localId, deviceId: $0.id, kind: "plan", messageId: "m1") }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.claimDeliveries(requests, at: s.now), [.send, .send, .send])
                XCTAssertEqual(try tx.claimDeliveries(requests, at: s.now), [.alreadyDone, .alreadyDone, .alreadyDone], "a claim in progress is not sent twice")
                try tx.finishDeliveries([DeliveryResult(requests[0], DeliveryOutcome(status: "sent")),
                                         DeliveryResult(requests[1], DeliveryOutcome(status: "failed", reason: "ServiceUnavailable"))], at: s.now)
            }
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.claimDeliveries(requests, at: s.now.addingTimeInterval(5)), [.alreadyDone, .retry(since: s.now), .alreadyDone],
                               "only the failed one is tried again, knowing when it was first tried")
                XCTAssertEqual(try tx.planDeliveryCounts(localIds: [localId, "nothing/sent"]), [localId: 1], "plans APNs accepted")
                // Sent, or being sent (it may have reached the phone): those get the cancel.
                XCTAssertEqual(Set(try tx.planRecipients(runId: run.id).map(\.id)), [devices[0].id, devices[2].id])
                try tx.deactivateDevice(devices[0].id, reason: "logged out", at: s.now, deadSince: nil)
                XCTAssertEqual(try tx.planRecipients(runId: run.id).map(\.id), [devices[2].id], "a device that left gets nothing more")
            }
        }
    }

    func testAnOpenCountsOnlyForTheSubscribersOwnMessages() throws {
        try eachDriver { s in
            let mine = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u2", devices: 1)
            let run = s.startedRun("u1")
            try s.store.transaction { tx in
                try tx.insertRun(run)
                _ = try tx.claimDeliveries([DeliveryRequest(tenantId: s.tenantId, runId: run.id, idempotencyKey: "k1", deviceId: mine[0].id,
                                                            kind: "fallback", messageId: "m-1")], at: s.now)
                try tx.recordOpen(tenantId: s.tenantId, subscriberId: "u2", messageId: "m-1", at: s.now)
            }
            XCTAssertEqual(try s.driver.opens(tenantId: s.tenantId), 0, "another subscriber cannot mark u1's message opened")
            try s.store.transaction { try $0.recordOpen(tenantId: s.tenantId, subscriberId: "u1", messageId: "m-1", at: s.now) }
            XCTAssertEqual(try s.driver.opens(tenantId: s.tenantId), 1)
        }
    }

    func testTheDirectoryAsATransactionSeesIt() throws {
        try eachDriver { s in
            let devices = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 2)
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u2", devices: 1)
            try s.store.transaction { tx in
                XCTAssertEqual(try tx.tenant(s.tenantId)?.id, s.tenantId)
                XCTAssertNil(try tx.tenant("t_nobody"))
                XCTAssertEqual(try tx.subscriber(tenantId: s.tenantId, id: "u1")?.id, "u1")
                XCTAssertNil(try tx.subscriber(tenantId: s.tenantId, id: "nobody"))
                XCTAssertEqual(Set(try tx.subscribers(tenantId: s.tenantId, ids: ["u1", "u2", "nobody"]).map(\.id)), ["u1", "u2"])
                XCTAssertEqual(Set(try tx.activeDevices(tenantId: s.tenantId, subscriberId: "u1").map(\.id)), Set(devices.map(\.id)))
                let both = try tx.activeDevices(tenantId: s.tenantId, subscriberIds: ["u1", "u2"])
                XCTAssertEqual([both["u1"]?.count, both["u2"]?.count], [2, 1])
                XCTAssertEqual(try tx.workflows(tenantId: s.tenantId, triggeredBy: "workout.scheduled").map(\.key), ["leg-day"])
                XCTAssertEqual(try tx.workflows(tenantId: s.tenantId, triggeredBy: "workout.completed"), [])
                XCTAssertEqual(try tx.cancelEventNames(tenantId: s.tenantId), ["workout.completed", "workout.moved"])
                XCTAssertEqual(try tx.currentWorkflow(tenantId: s.tenantId, key: "leg-day")?.version, s.workflow.version)
            }
        }
    }

    func testATransactionThatThrowsLeavesNothingBehind() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            let run = s.startedRun("u1")
            struct Abort: Error {}
            XCTAssertThrowsError(try s.store.transaction { tx in
                try tx.insertRun(run)
                _ = try tx.markEventsProcessed(tenantId: s.tenantId, eventIds: ["id:x"], at: s.now)
                throw Abort()
            })
            try s.store.transaction { tx in
                XCTAssertNil(try tx.lockRun(run.id))
                XCTAssertEqual(try tx.markEventsProcessed(tenantId: s.tenantId, eventIds: ["id:x"], at: s.now), ["id:x"], "rolled back with the run")
            }
        }
    }
}
