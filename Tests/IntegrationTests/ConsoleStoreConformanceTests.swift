import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import XCTest

/// The ``Store`` port's reads for the console, alike on every driver (``ConformanceTestCase``).
final class ConsoleStoreConformanceTests: ConformanceTestCase {
    /// The console's health page: a tenant's pushes by kind and outcome in the minute they
    /// were claimed, its windows by how they ended in the minute of their moment.
    func testMinuteActivityCountsTheTenantsPushesAndWindowsByMinute() throws {
        try eachDriver { s in
            let (held, phones, heldId) = try s.storedRun("u1", devices: 2)
            let (missed, phone, missedId) = try s.storedRun("u2", devices: 1)
            let plans = phones.map { DeliveryRequest(tenantId: s.tenantId, runId: held.id, idempotencyKey: heldId, deviceId: $0.id, kind: "plan", messageId: "m1") }
            let moment = s.now.addingTimeInterval(3600)
            let fallback = DeliveryRequest(tenantId: s.tenantId, runId: missed.id, idempotencyKey: missedId + "/fallback", deviceId: phone[0].id,
                                           kind: "fallback", messageId: "m2")
            try s.store.transaction { tx in
                _ = try tx.claimDeliveries(plans, at: s.now)
                try tx.finishDeliveries([DeliveryResult(plans[0], DeliveryOutcome(status: "sent")),
                                         DeliveryResult(plans[1], DeliveryOutcome(status: "rejected", reason: "BadDeviceToken"))], at: s.now)
                _ = try tx.recordAcknowledgments(tenantId: s.tenantId, [DeviceAcknowledgment(subscriberId: "u1", localId: heldId, device: phones[0].token,
                                                                                            messageId: nil, kind: .scheduled, at: s.now)], at: s.now)
                try tx.lockWindowsForDecision(tenantId: s.tenantId, localIds: [missedId])
                try tx.markFallbacksDecided(tenantId: s.tenantId, localIds: [missedId], at: moment)
                _ = try tx.claimDeliveries([fallback], at: moment)
                try tx.finishDeliveries([DeliveryResult(fallback, DeliveryOutcome(status: "sent"))], at: moment)
            }
            try s.store.transaction { tx in
                let found = try tx.minuteActivity(tenantId: s.tenantId, since: s.now.addingTimeInterval(-60), until: moment.addingTimeInterval(60))
                let first = try XCTUnwrap(found.first { $0.minute == MinuteActivity.minute(of: s.now) }, "the plans' minute")
                XCTAssertEqual([first.sent, first.failed], [["plan": 1], ["plan": 1]])
                XCTAssertEqual(found.map(\.acknowledged).reduce(0, +), 1, "u1's window: a device holds it")
                XCTAssertEqual(found.map(\.fallback).reduce(0, +), 1, "u2's window: its fallback decided")
                XCTAssertEqual(found.compactMap { $0.sent["fallback"] }.reduce(0, +), 1)
                XCTAssertEqual(found.filter { $0.acknowledged + $0.fallback > 0 }.map(\.minute), [MinuteActivity.minute(of: moment)], "in their moment's minute")
                XCTAssertEqual(try tx.minuteActivity(tenantId: s.tenantId, since: s.now.addingTimeInterval(60), until: moment.addingTimeInterval(-60)), [],
                               "nothing outside the asked minutes")
                XCTAssertEqual(try tx.minuteActivity(tenantId: "t_someone_else", since: s.now.addingTimeInterval(-60), until: moment.addingTimeInterval(60)), [],
                               "another tenant sees none of it")
            }
        }
    }
}
