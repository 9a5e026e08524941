import BuzzEngine
import BuzzKitWire
import Foundation
import XCTest

final class PayloadTests: XCTestCase {
    private let plan = LocalPlan(
        id: "run-1/nudge", messageId: "11111111-2222-8333-8444-555555555555",
        fireAt: FireAt(year: 2026, month: 12, day: 1, hour: 7, minute: 0, second: 0),
        title: "Leg day", body: "6:00 with Maya.", deepLink: "gym://workouts/legs", data: [:], cancelOn: ["workout.completed"])

    func testSilentPlanBodyIsExactlyTheContract() throws {
        let encoded = try PayloadBuilder.silentPlan(plan)
        XCTAssertEqual(encoded.body, #"{"aps":{"content-available":1},"bk.local":{"id":"run-1/nudge","messageId":"11111111-2222-8333-8444-555555555555","fireAt":{"year":2026,"month":12,"day":1,"hour":7,"minute":0,"second":0},"title":"Leg day","body":"6:00 with Maya.","deepLink":"gym://workouts/legs","data":{},"cancelOn":["workout.completed"]}}"#)
        XCTAssertEqual(encoded.byteCount, encoded.body.utf8.count)
    }

    func testCodableFormsMatchTheWriter() throws {
        let payloads: [any APNsPayload] = [
            SilentPlanPayload(local: plan), CancelPayload(id: "run-1"),
            AlertPayload(title: "T", body: "B", messageId: "m", localId: "run-1/nudge", deepLink: nil, data: ["k": 1]),
        ]
        for payload in payloads {
            let viaWriter = try JSONDecoder().decode(JSONValue.self, from: Data(payload.jsonBytes))
            let viaCodable = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(payload))
            XCTAssertEqual(viaWriter, viaCodable)
        }
        let decoded = try JSONDecoder().decode(SilentPlanPayload.self, from: Data(SilentPlanPayload(local: plan).jsonBytes))
        XCTAssertEqual(decoded.local, plan)
    }

    func testDeepLinkIsOmittedWhenAbsent() throws {
        var bare = plan
        bare.deepLink = nil
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(try PayloadBuilder.silentPlan(bare).body.utf8))
        XCTAssertNil(json["bk.local"]?["deepLink"])
        XCTAssertEqual(json["bk.local"]?["data"], [:])
    }

    func testCancelBody() {
        XCTAssertEqual(PayloadBuilder.cancel(runId: "run-1").body, #"{"aps":{"content-available":1},"bk.cancel":{"id":"run-1"}}"#)
        let cancel = CancelPayload(id: "run-1")
        XCTAssertTrue(cancel.matches(localId: "run-1/nudge"))
        XCTAssertTrue(cancel.matches(localId: "run-1"))
        XCTAssertFalse(cancel.matches(localId: "run-2/nudge"))
    }

    func testFallbackBody() throws {
        let encoded = try PayloadBuilder.fallback(for: plan)
        XCTAssertEqual(encoded.body, #"{"aps":{"alert":{"title":"Leg day","body":"6:00 with Maya."},"sound":"default"},"bk":{"messageId":"11111111-2222-8333-8444-555555555555","localId":"run-1/nudge","deepLink":"gym://workouts/legs","data":{}}}"#)
        let decoded = try JSONDecoder().decode(AlertPayload.self, from: Data(encoded.body.utf8))
        XCTAssertEqual(decoded.localId, "run-1/nudge")
        XCTAssertEqual(decoded.sound, "default")
    }

    func testHeaders() {
        XCTAssertEqual(APNsHeaders.plan(expiresAt: 1_796_029_200).fields(topic: "com.example.gym").map(\.name),
                       ["apns-push-type", "apns-priority", "apns-topic", "apns-expiration"])
        let alert = APNsHeaders.alert(collapseId: "run-1/nudge/fallback").fields(topic: "t")
        XCTAssertEqual(alert.first { $0.name == "apns-push-type" }?.value, "alert")
        XCTAssertEqual(alert.first { $0.name == "apns-priority" }?.value, "10")
        XCTAssertEqual(alert.first { $0.name == "apns-collapse-id" }?.value, "run-1/nudge/fallback")
    }

    func testPayloadLimitIsEnforcedWithATypedError() {
        var big = plan
        big.body = String(repeating: "x", count: 4000)
        XCTAssertThrowsError(try PayloadBuilder.silentPlan(big, path: "steps[1].send")) { error in
            guard let error = error as? EngineError else { return XCTFail("wrong error type") }
            XCTAssertEqual(error.code, .payloadTooLarge)
            XCTAssertEqual(error.path, "steps[1].send")
            XCTAssertTrue(error.message.contains("4096"), error.message)
        }
        var fits = plan
        let overhead = (try? PayloadBuilder.silentPlan(plan).byteCount) ?? 0
        fits.body += String(repeating: "y", count: PayloadBuilder.apnsPayloadLimit - overhead)
        XCTAssertEqual(try? PayloadBuilder.silentPlan(fits).byteCount, 4096)
        fits.body += "y"
        XCTAssertNil(try? PayloadBuilder.silentPlan(fits))
    }

    func testFallbackIsNeverLargerThanItsPlan() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let text = { (count: Int) in String((0..<count).map { _ in "aé\"\n{}x".randomElement(using: &generator)! }) }
            let sample = LocalPlan(id: text(Int.random(in: 1...80, using: &generator)), messageId: text(36),
                                   fireAt: FireAt(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0),
                                   title: text(Int.random(in: 0...100, using: &generator)), body: text(Int.random(in: 0...300, using: &generator)),
                                   deepLink: Bool.random(using: &generator) ? text(20) : nil,
                                   data: ["k": .string(text(Int.random(in: 0...50, using: &generator)))], cancelOn: [])
            XCTAssertLessThan(AlertPayload(title: sample.title, body: sample.body, messageId: sample.messageId, localId: sample.id,
                                           deepLink: sample.deepLink, data: sample.data).jsonBytes.count,
                              SilentPlanPayload(local: sample).jsonBytes.count)
        }
    }

    func testIdempotencyKeys() {
        let localId = PayloadBuilder.localId(runId: "run-1", stepName: "nudge")
        XCTAssertEqual(localId, "run-1/nudge")
        XCTAssertEqual(PayloadBuilder.fallbackIdempotencyKey(localId: localId), "run-1/nudge/fallback")
        XCTAssertEqual(PayloadBuilder.pushIdempotencyKey(runId: "run-1", stepName: "alert"), "run-1/alert/push")
        let longLocal = PayloadBuilder.localId(runId: "0b9a4a5e-7c55-4f0e-9d55-9f5e2f1c3a77", stepName: "morning-nudge-for-legs")
        let key = PayloadBuilder.fallbackIdempotencyKey(localId: longLocal)
        XCTAssertEqual(key.utf8.count, 64)
        XCTAssertFalse(key.contains("/"))
        XCTAssertEqual(key, PayloadBuilder.fallbackIdempotencyKey(localId: longLocal))
        XCTAssertNotEqual(key, PayloadBuilder.fallbackIdempotencyKey(localId: longLocal + "x"))
        let exactly64 = String(repeating: "r", count: 64 - "/fallback".count - 2) + "/n"
        XCTAssertEqual(PayloadBuilder.fallbackIdempotencyKey(localId: exactly64), exactly64 + "/fallback")
    }

    func testMessageIdsAreStableVersion8UUIDs() {
        let id = PayloadBuilder.messageId(localId: "run-1/nudge")
        XCTAssertEqual(id, PayloadBuilder.messageId(localId: "run-1/nudge"))
        XCTAssertNotEqual(id, PayloadBuilder.messageId(localId: "run-2/nudge"))
        XCTAssertEqual(id.count, 36)
        let parsed = UUID(uuidString: id)
        XCTAssertNotNil(parsed)
        XCTAssertEqual(Array(id)[14], "8")
        XCTAssertTrue("89ab".contains(Array(id)[19]))
        XCTAssertEqual(id, id.lowercased())
    }

    func testSHA256KnownAnswersThroughShortenedKeys() {
        // A key over 64 bytes is replaced by the SHA-256 hex of the key itself.
        let abc448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        XCTAssertEqual(PayloadBuilder.bounded(abc448 + abc448),
                       "59f109d9533b2b70e7c3b814a2bd218f78ea5d3714455bc67987cf0d664399cf")
        XCTAssertEqual(PayloadBuilder.bounded(String(repeating: "a", count: 1000)),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        XCTAssertEqual(PayloadBuilder.bounded(String(repeating: "a", count: 65)),
                       "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0")
    }
}
