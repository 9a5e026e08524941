import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import XCTest

/// Urgent before bulk on the real API, PostgreSQL and RabbitMQ, at a small scale: a campaign
/// of 3,000 events sent as bulk, then one ordinary event of the same tenant and one of
/// another tenant, each due in 15 s. Both ordinary plans reach their phones while most of the
/// campaign still waits, and the campaign is still delivered whole.
final class LaneIntegrationTests: APITestCase {
    let campaign = 3_000

    func testOrdinaryEventsOvertakeACampaignOfTheirOwnAndAnotherTenant() throws {
        // The campaign's audience: 30 subscribers with a phone each, 100 events apiece, due in 20 minutes.
        let audience = try (1...30).map { try pipeline.subscriber("c\($0)").first! }
        let maya = try pipeline.subscriber("maya").first!
        let other = try pipeline.directory.createTenant(name: "other")
        try pipeline.directory.putWorkflow(tenantId: other.tenantId, definition: try WorkflowDefinition.parse(PipelineHarness.legDay),
                                           source: PipelineHarness.legDay)
        try pipeline.directory.putSubscriber(SubscriberRecord(tenantId: other.tenantId, id: "ola", timezone: "Europe/Berlin"))
        let ola = Digest64.token("\(pipeline.schema)-ola")
        try pipeline.directory.putDevice(DeviceRecord(tenantId: other.tenantId, subscriberId: "ola", token: ola, topic: "com.example.gym"))

        let far = RFC3339.format(Date().addingTimeInterval(1200))
        for chunk in stride(from: 0, to: campaign, by: 1000) {
            let events = (chunk..<chunk + 1000).map { n in
                ["event": "workout.scheduled", "subscriberId": "c\(n % 30 + 1)", "properties": ["at": far, "workoutId": "w\(n)"]] as [String: Any]
            }
            let answer = api.call("POST", "/v1/events/bulk", body: ["events": events], key: api.secretKey)
            XCTAssertEqual(answer.status, 202, String(decoding: answer.data, as: UTF8.self))
        }
        let soon = RFC3339.format(Date().addingTimeInterval(15))
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "maya", "properties": ["at": soon]],
                                key: api.secretKey).status, 202)
        XCTAssertEqual(api.call("POST", "/v1/events", body: ["event": "workout.scheduled", "subscriberId": "ola", "properties": ["at": soon]],
                                key: other.secretKey).status, 202)

        XCTAssertTrue(TestServices.eventually(timeout: 30) { !self.pipeline.pushes(to: maya).isEmpty && !self.pipeline.pushes(to: ola).isEmpty },
                      "both ordinary plans reached their phones")
        let sent = pipeline.push.sent
        let audienceTokens = Set(audience)
        func campaignPlansBefore(_ token: String) -> Int {
            let index = sent.firstIndex { $0.deviceToken == token } ?? sent.count
            return sent[..<index].filter { audienceTokens.contains($0.deviceToken) }.count
        }
        XCTAssertLessThan(campaignPlansBefore(maya), campaign / 2, "the same tenant's ordinary event did not wait for its campaign")
        XCTAssertLessThan(campaignPlansBefore(ola), campaign / 2, "another tenant's event did not wait for the campaign")

        // The campaign itself is delivered whole, through the bulk lanes.
        XCTAssertTrue(TestServices.eventually(timeout: 120) { self.pipeline.push.sent.filter { audienceTokens.contains($0.deviceToken) }.count >= self.campaign },
                      "every campaign plan was sent")
        let lanes = try pipeline.pool.withConnection { db in
            try db.query("SELECT bulk, count(*) AS n FROM runs GROUP BY bulk ORDER BY bulk").map { (try $0.decode("bulk", as: Bool.self), try $0.decode("n", as: Int.self)) }
        }
        XCTAssertEqual(lanes.map(\.0), [false, true])
        XCTAssertEqual(lanes.last?.1, campaign, "the campaign's runs are bulk runs")
    }
}
