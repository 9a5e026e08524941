import BuzzEngine
import BuzzKitWire
import BuzzServerTesting
import BuzzTesting
import Foundation
import PushDelivery
import PushDeliveryTesting
import XCTest
@testable import BuzzPipeline
@testable import BuzzScheduler
@testable import BuzzServer
@testable import BuzzServerCore
@testable import BuzzStore

/// The ``Directory`` port behaves alike on every driver: keys, secrets, settings, devices,
/// workflows and device sync, as the API relies on them.
final class DirectoryConformanceTests: ConformanceTestCase {
    func testKeysAuthenticateUntilRevokedAndAreListedNewestFirst() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            let credentials = try directory.createTenant(name: "gym")
            let secret = try XCTUnwrap(APIKey(credentials.secretKey)), publishable = try XCTUnwrap(APIKey(credentials.publishableKey))
            XCTAssertEqual(try directory.authenticate(secret)?.tenant.id, credentials.tenantId)
            XCTAssertEqual(try directory.authenticate(publishable)?.kind, .publishable)
            XCTAssertNil(try directory.authenticate(APIKey(kind: .secret, id: secret.id, secret: String(repeating: "0", count: 48))), "wrong secret")
            XCTAssertNil(try directory.authenticate(APIKey(kind: .publishable, id: secret.id, secret: secret.secret)), "wrong kind")

            let added = try XCTUnwrap(APIKey(try directory.createKey(tenantId: credentials.tenantId, kind: .secret)))
            XCTAssertNotNil(try directory.authenticate(added))
            try directory.revokeKey(tenantId: credentials.tenantId, keyId: added.id)
            XCTAssertNil(try directory.authenticate(added), "revoked")
            XCTAssertNotNil(try directory.authenticate(secret), "the others keep working")
            XCTAssertThrowsError(try directory.revokeKey(tenantId: credentials.tenantId, keyId: added.id), "revoked already")
            XCTAssertThrowsError(try directory.revokeKey(tenantId: s.tenantId, keyId: secret.id), "another tenant's key")
            XCTAssertThrowsError(try directory.createKey(tenantId: "t_nobody", kind: .secret))
            let listed = try directory.keys(tenantId: credentials.tenantId)
            XCTAssertEqual(listed.count, 3)
            XCTAssertEqual(listed.first?.id, added.id, "newest first")
            XCTAssertEqual(listed.filter { $0.revokedAt != nil }.map(\.id), [added.id])
        }
    }

    func testARotatedSigningSecretKeepsTheOldOneForTheGrace() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            let before = try XCTUnwrap(try directory.tenant(s.tenantId))
            let rotated = try directory.rotateSigningSecret(tenantId: s.tenantId, grace: 3600)
            let after = try XCTUnwrap(try directory.tenant(s.tenantId))
            XCTAssertEqual(after.signingSecret, rotated)
            XCTAssertEqual(after.previousSigningSecret, before.signingSecret)
            XCTAssertGreaterThan(try XCTUnwrap(after.previousSigningSecretUntil), Date().addingTimeInterval(3500))
            XCTAssertThrowsError(try directory.rotateSigningSecret(tenantId: "t_nobody", grace: 0))
        }
    }

    func testSettingsChangeOnlyTheFieldsGiven() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            let window = try QuietHours.parse("22:00-07:00")
            try directory.updateSettings(tenantId: s.tenantId, quietHours: .some(window), defaultTimezone: "Europe/Berlin", allowedTopics: nil)
            try directory.updateSettings(tenantId: s.tenantId, quietHours: nil, defaultTimezone: nil, allowedTopics: ["com.example.gym"])
            var tenant = try XCTUnwrap(try directory.tenant(s.tenantId))
            XCTAssertEqual([tenant.quietHours?.start, tenant.quietHours?.end].map { $0.map { "\($0)" } }, ["\(window.start)", "\(window.end)"])
            XCTAssertEqual(tenant.defaultTimezone, "Europe/Berlin")
            XCTAssertEqual(tenant.allowedTopics, ["com.example.gym"])
            try directory.updateSettings(tenantId: s.tenantId, quietHours: .some(nil), defaultTimezone: nil, allowedTopics: nil)
            tenant = try XCTUnwrap(try directory.tenant(s.tenantId))
            XCTAssertNil(tenant.quietHours, "cleared")
            XCTAssertEqual(tenant.allowedTopics, ["com.example.gym"], "kept")
        }
    }

    func testDevicesAreCappedReactivatedAndMovedBetweenSubscribers() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            try directory.putSubscriber(SubscriberRecord(tenantId: s.tenantId, id: "u1", timezone: "Asia/Tokyo"))
            func device(_ subscriber: String, _ token: String, authorization: String? = nil) -> DeviceRecord {
                DeviceRecord(tenantId: s.tenantId, subscriberId: subscriber, token: token, topic: "com.example.gym", authorization: authorization)
            }
            func active(_ subscriber: String) throws -> Set<String> {
                Set(try s.store.transaction { try $0.activeDevices(tenantId: s.tenantId, subscriberId: subscriber) }.map(\.token))
            }
            let tokens = (0..<3).map { _ in ConformanceTestCase.newToken() }
            try directory.putDevice(device("u1", tokens[0], authorization: "authorized"), maxActive: 2)
            try directory.putDevice(device("u1", tokens[1]), maxActive: 2)
            try directory.putDevice(device("u1", tokens[2]), maxActive: 2)
            XCTAssertEqual(try active("u1"), [tokens[1], tokens[2]], "past the cap the least recently registered turns inactive")
            XCTAssertEqual(try s.store.transaction { try $0.subscriber(tenantId: s.tenantId, id: "u1") }?.timezone, "Asia/Tokyo",
                           "registering does not touch the subscriber")
            let again = try directory.putDevice(device("u1", tokens[0]), maxActive: 2)
            XCTAssertEqual(try active("u1"), [tokens[0], tokens[2]], "registered again: active, and now the latest")
            let moved = try directory.putDevice(device("u2", tokens[0]), maxActive: 2)
            XCTAssertEqual(moved, again, "the same device, moved")
            XCTAssertEqual(try active("u1"), [tokens[2]])
            XCTAssertEqual(try active("u2"), [tokens[0]])
            XCTAssertTrue(try directory.subscriberExists(tenantId: s.tenantId, id: "u2"), "created by the registration")
            let kept = try s.store.transaction { try $0.activeDevices(tenantId: s.tenantId, subscriberId: "u2") }.first?.authorization
            XCTAssertEqual(kept, "authorized", "a registration without authorization keeps the one stored")
        }
    }

    func testDeactivationSaysWhatItFound() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            let token = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)[0].token
            XCTAssertEqual(try directory.deactivateDevice(tenantId: s.tenantId, subscriberId: "u2", token: token, reason: "logged out", at: s.now), .notFound)
            XCTAssertEqual(try directory.deactivateDevice(tenantId: s.tenantId, subscriberId: "u1", token: token, reason: "logged out", at: s.now), .deactivated)
            XCTAssertEqual(try directory.deactivateDevice(tenantId: s.tenantId, subscriberId: "u1", token: token, reason: "again", at: s.now), .alreadyInactive)
            XCTAssertEqual(try s.store.transaction { try $0.activeDevices(tenantId: s.tenantId, subscriberId: "u1") }, [])
        }
    }

    func testWorkflowVersionsGrowAndOldCancelNamesStay() throws {
        try eachDriver { s in
            let directory = s.driver.directory
            var source = PipelineHarness.legDay
            guard case .object(var object) = source else { return XCTFail("leg-day is an object") }
            object["cancelOn"] = .array([.object(["event": .string("workout.deleted")])])
            source = .object(object)
            let version = try directory.putWorkflow(tenantId: s.tenantId, definition: try WorkflowDefinition.parse(source), source: source)
            XCTAssertEqual(version, s.workflow.version + 1)
            XCTAssertEqual(try directory.workflow(tenantId: s.tenantId, key: "leg-day")?.version, version)
            XCTAssertEqual(try directory.workflow(tenantId: s.tenantId, key: "leg-day")?.source, source)
            XCTAssertNil(try directory.workflow(tenantId: s.tenantId, key: "nothing"))
            XCTAssertEqual(try s.store.transaction { try $0.cancelEventNames(tenantId: s.tenantId) },
                           ["workout.completed", "workout.deleted", "workout.moved"], "runs of the first version may still cancel on its names")

            // The history, newest first, stays after a retire; `current` says which one starts runs.
            var history = try directory.workflowVersions(tenantId: s.tenantId, key: "leg-day", limit: 10)
            XCTAssertEqual(history.current, version)
            XCTAssertEqual(history.versions.map(\.version), [version, s.workflow.version])
            XCTAssertEqual(history.versions.map(\.source), [source, PipelineHarness.legDay], "each as it was stored")
            XCTAssertEqual(try directory.workflowVersions(tenantId: s.tenantId, key: "leg-day", limit: 1).versions.map(\.version), [version])
            XCTAssertTrue(try directory.retireWorkflow(tenantId: s.tenantId, key: "leg-day", at: s.now))
            history = try directory.workflowVersions(tenantId: s.tenantId, key: "leg-day", limit: 10)
            XCTAssertNil(history.current, "retired: no version starts runs")
            XCTAssertEqual(history.versions.count, 2, "its history stays")
            XCTAssertEqual(try directory.workflowVersions(tenantId: try s.driver.tenant(), key: "leg-day", limit: 10).versions, [], "another tenant's is not seen")
        }
    }

    func testPendingPlansAreThoseOfLiveRunsAheadOfNow() throws {
        try eachDriver { s in
            _ = try s.driver.subscriber(tenantId: s.tenantId, id: "u1", devices: 1)
            let context = PipelineContext(store: s.store, topology: Topology(), push: InMemoryPushProvider(), clock: ManualClock(s.now))
            func event(_ name: String, at moment: Date) throws {
                let event = BuzzEvent(event: name, subscriberId: "u1", properties: ["at": .string(ISO8601DateFormatter().string(from: moment)), "workoutId": "w1"],
                                      timestamp: s.now)
                _ = try StageProcessor(context: context).process([.event(EventProcessor.Item(tenantId: s.tenantId, event: event, dedupeKey: nil))])
            }
            try event("workout.scheduled", at: s.now.addingTimeInterval(7200))
            try event("workout.scheduled", at: s.now.addingTimeInterval(3600))
            let plans = try s.driver.directory.pendingPlans(tenantId: s.tenantId, subscriberId: "u1", now: s.now)
            XCTAssertEqual(plans.count, 2)
            let later = try s.driver.directory.pendingPlans(tenantId: s.tenantId, subscriberId: "u1", now: s.now.addingTimeInterval(5400))
            XCTAssertEqual(later.count, 1, "only moments after now")
            XCTAssertEqual(plans.last, later.first, "in moment order: the later plan last, though its event came first")
            XCTAssertEqual(try s.driver.directory.pendingPlans(tenantId: s.tenantId, subscriberId: "u2", now: s.now), [])
            try event("workout.completed", at: s.now)
            XCTAssertEqual(try s.driver.directory.pendingPlans(tenantId: s.tenantId, subscriberId: "u1", now: s.now), [], "cancelled runs hold no plans")
        }
    }
}
