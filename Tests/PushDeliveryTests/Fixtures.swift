import APNsStandIn
import Foundation
@testable import PushDelivery

/// Things made once per test run: the stand-in's TLS identity, a provider key, the CA file.
enum Fixtures {
    static let credentials: StandInCredentials = try! StandInCredentials.generate()
    static let key: ProviderKeyPair = try! ProviderKeyPair.generate(keyID: "TESTKEY001", teamID: "TESTTEAM01")
    static let directory: String = {
        let path = NSTemporaryDirectory() + "buzzkit-apns-tests-\(getpid())"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
    static let files: StandInCredentials.Files = try! credentials.write(to: directory)
    static let caFile: String = files.caCertificate
    static let topic = "com.buzzkit.example"

    /// The n-th device token: 64 hex digits.
    static func token(_ number: Int) -> String {
        String(format: "%064x", number)
    }

    /// A silent plan body as docs/contract.md §4 shapes it.
    static func planPayload(runId: String = "run_1", step: String = "nudge") -> Data {
        let text = """
        {"aps":{"content-available":1},"bk.local":{"id":"\(runId)/\(step)","messageId":"\(UUID().uuidString)",\
        "fireAt":{"year":2026,"month":12,"day":1,"hour":7,"minute":0,"second":0},"title":"Leg day",\
        "body":"6:00 with Maya.","deepLink":"gym://workouts/legs","data":{},"cancelOn":["workout.completed"]}}
        """
        return Data(text.utf8)
    }

    /// A fallback alert body as docs/contract.md §4 shapes it.
    static func alertPayload(localId: String = "run_1/nudge") -> Data {
        Data("""
        {"aps":{"alert":{"title":"Leg day","body":"6:00 with Maya."},"sound":"default"},\
        "bk":{"messageId":"\(UUID().uuidString)","localId":"\(localId)","deepLink":"gym://workouts/legs","data":{}}}
        """.utf8)
    }

    /// A silent push to device `number`.
    static func silent(_ number: Int, expiration: Date? = Date(timeIntervalSince1970: 1_800_000_000),
                       environment: PushNotification.Environment = .production) -> PushNotification {
        .background(deviceToken: token(number), topic: topic, environment: environment,
                    expiration: expiration, payload: planPayload())
    }

    // Signs JWTs of any shape with any key, to forge bad tokens.

    static func jwt(header: String, claims: String, key: ProviderKeyPair) throws -> String {
        let signer = try ES256Signer(privateKeyPEM: key.privateKeyPEM)
        let input = Data(header.utf8).base64URLEncodedString + "." + Data(claims.utf8).base64URLEncodedString
        return input + "." + (try signer.sign(Data(input.utf8))).base64URLEncodedString
    }

    static func jwt(kid: String = Fixtures.key.keyID, iss: String = Fixtures.key.teamID, iat: Date = Date(),
                    key: ProviderKeyPair = Fixtures.key) throws -> String {
        try jwt(header: "{\"alg\":\"ES256\",\"kid\":\"\(kid)\"}",
                claims: "{\"iss\":\"\(iss)\",\"iat\":\(Int(iat.timeIntervalSince1970))}", key: key)
    }

    /// A thread-safe counter for concurrent test workers.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var total = 0

        func add(_ amount: Int) { lock.withLock { total += amount } }
        var value: Int { lock.withLock { total } }
    }

    /// Pushes seen by an `onPush` hook (called on stand-in threads).
    final class PushLog: @unchecked Sendable {
        private let lock = NSLock()
        private var pushes: [RecordedPush] = []

        func append(_ push: RecordedPush) { lock.withLock { pushes.append(push) } }
        var all: [RecordedPush] { lock.withLock { pushes } }
    }
}
