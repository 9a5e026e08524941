import BuzzKitWire
import BuzzServer
import Foundation
import PushDelivery
import PushDeliveryTesting

/// One phone floods the API (issue 38's bench): two threads post its events as fast as the API
/// answers, alternating 1,000-event batches (refused whole, `413`) and 100-event ones (held to
/// the subscriber's events a second, `429` past them). Meanwhile another tenant's backend sends
/// an ordinary event every half second, due in 15 s; the figure is how long each took to become
/// a plan on its phone, beside the same probe with no flood just before. The target: ordinary
/// p99 at most twice the unloaded one, and no ordinary event refused or lost.
struct PhoneFlood {
    let client: BenchHTTPClient
    let phoneTenant: TenantCredentials
    let other: TenantCredentials
    let push: InMemoryPushProvider
    let tokens: [String: String]
    var seconds: Double = 10

    func run(report: inout BenchReport) throws {
        let backend = { (tenantId: String, event: BuzzEvent) throws in
            guard client.post("/v1/events", ["event": event.event, "subscriberId": event.subscriberId,
                                             "properties": ["at": event.properties["at"]?.stringValue ?? ""]], key: other.secretKey) == 202 else {
                throw BenchFailure("an ordinary event was refused during the phone's flood")
            }
        }
        FileHandle.standardError.write(Data("fairness: ordinary events with no flood...\n".utf8))
        let unloaded = try FairnessBench.probe([other.tenantId], seconds: seconds, subscribers: 201...250, push: push, tokens: tokens, send: backend)[other.tenantId] ?? []

        let (http, key) = (client, phoneTenant.publishableKey)
        let token = TenantCredentials.subscriberToken(signingSecret: phoneTenant.signingSecret, subscriberId: "s1",
                                                      expiresAt: Int(Date().timeIntervalSince1970) + 3600)
        let answers = Locked([Int: Int]())
        let stop = Locked(false)
        let flooders = (0..<2).map { thread in
            Thread {
                var round = 0
                while !stop.withLock({ $0 }) {
                    let size = round % 2 == 0 ? 1000 : 100
                    let events = (0..<size).map { ["id": "flood-\(thread)-\(round)-\($0)", "event": "app.opened", "subscriberId": "s1"] as [String: Any] }
                    let status = http.post("/v1/events", ["events": events], key: key, headers: ["X-BuzzKit-Subscriber-Token": token])
                    answers.withLock { $0[size * 1000 + status, default: 0] += 1 }
                    round += 1
                }
            }
        }
        flooders.forEach { $0.start() }
        FileHandle.standardError.write(Data("fairness: one phone flooding the API; probing...\n".utf8))
        let during = try FairnessBench.probe([other.tenantId], seconds: seconds, subscribers: 251...300, push: push, tokens: tokens, send: backend)[other.tenantId] ?? []
        stop.withLock { $0 = true }
        while flooders.contains(where: \.isExecuting) { Thread.sleep(forTimeInterval: 0.01) }

        FairnessBench.add(report: &report, "phone flood: another tenant's event, no flood", unloaded)
        FairnessBench.add(report: &report, "phone flood: another tenant's event while one phone floods", during)
        let p99 = { (samples: [Double]) in samples.sorted()[min(samples.count - 1, Int(Double(samples.count - 1) * 0.99))] }
        let lost = during.filter { !$0.isFinite }.count + unloaded.filter { !$0.isFinite }.count
        let ratio = unloaded.isEmpty || during.isEmpty ? .infinity : p99(during) / max(p99(unloaded), 0.001)
        report.add("phone flood: ordinary p99 against unloaded (target at most 2, 0 lost)", ratio,
                   unit: String(format: "× (%d ordinary events lost)", lost))
        let seen = answers.withLock { $0 }
        report.add("phone flood: the phone's 1,000-event batches accepted", Double(seen[1000 * 1000 + 202] ?? 0),
                   unit: "of \(seen.filter { $0.key / 1000 == 1000 }.values.reduce(0, +)) (\(seen[1000 * 1000 + 413] ?? 0) refused 413, \(seen[1000 * 1000 + 429] ?? 0) 429 past the token's 20 requests a second)")
        report.add("phone flood: the phone's 100-event batches accepted", Double(seen[100 * 1000 + 202] ?? 0),
                   unit: "of \(seen.filter { $0.key / 1000 == 100 }.values.reduce(0, +)) (the rest 429: 50 events a second, burst 500)")
    }
}
