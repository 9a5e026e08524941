import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// What a locked phone does to the SDK's state. On iOS the subscriber token lives in the
/// Keychain (``KeychainKeyValueStore``, after first unlock, this device only) and the state files
/// are readable from the first unlock on (``FileKeyValueStore``); here the same client runs over
/// in-memory twins, one of which can refuse reads as a phone not unlocked since it restarted does.
final class ProtectedStateTests: XCTestCase {
    /// A store whose reads fail while ``locked`` (iOS: files of a phone not unlocked since it
    /// restarted), counting the writes that reach it.
    final class LockableStore: KeyValueStore, @unchecked Sendable {
        let inner = InMemoryKeyValueStore()
        private let lock = NSLock()
        private var isLocked = false
        private(set) var writesWhileLocked = 0
        var locked: Bool {
            get { lock.withLock { isLocked } }
            set { lock.withLock { isLocked = newValue } }
        }

        func data(forKey key: String) throws -> Data? {
            if locked { throw CocoaError(.fileReadNoPermission) }
            return try inner.data(forKey: key)
        }

        func setData(_ data: Data?, forKey key: String) throws {
            if locked { lock.withLock { writesWhileLocked += 1 } }
            try inner.setData(data, forKey: key)
        }
    }

    private let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
    private lazy var center = InMemoryNotificationCenter(clock: clock, capacity: 64)
    private let transport = RecordingTransport()

    private func client(store: any KeyValueStore, secrets: any KeyValueStore, signedIn: Bool = true) throws -> BuzzKitClient {
        let api = URL(string: "https://api.buzzkit.test/")!
        let configuration = signedIn
            ? Configuration(apiBaseURL: api, publishableKey: "pk_tenant_secret", subscriberId: "u_123",
                            subscriberToken: .fixed(TestPhone.token), pushTopic: "com.example.gym")
            : Configuration(apiBaseURL: api, publishableKey: "pk_tenant_secret", pushTopic: "com.example.gym")
        return try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(notificationCenter: center, clock: clock, store: store,
                                                                                   secrets: secrets, transport: transport, random: { 0 }))
    }

    private func everything(in store: InMemoryKeyValueStore) -> String {
        store.snapshot.values.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }

    func testTheSubscriberTokenIsKeptInTheSecretsStoreAndSurvivesAColdLaunch() async throws {
        let (store, secrets) = (InMemoryKeyValueStore(), InMemoryKeyValueStore())
        let first = try client(store: store, secrets: secrets)
        await first.start()
        try await first.track("app.opened")
        await first.flush()
        XCTAssertFalse(everything(in: store).isEmpty)
        XCTAssertFalse(everything(in: store).contains(TestPhone.token), "no token in the state files (backed up, readable)")
        XCTAssertTrue(everything(in: secrets).contains(TestPhone.token))
        await first.shutdown()

        let relaunched = try client(store: store, secrets: secrets, signedIn: false)  // a cold launch by a push, before the app signs in
        let token = await relaunched.cachedToken
        XCTAssertEqual(token, TestPhone.token)
    }

    func testATokenStoredWithTheIdentityBeforeMovesToTheSecretsStore() async throws {
        let (store, secrets) = (InMemoryKeyValueStore(), InMemoryKeyValueStore())
        try store.setData(Data(#"{"subscriberId":"u_123","lastToken":"\#(TestPhone.token)"}"#.utf8), forKey: "buzzkit.identity")
        let client = try client(store: store, secrets: secrets, signedIn: false)
        await client.start()
        XCTAssertFalse(everything(in: store).contains(TestPhone.token))
        XCTAssertTrue(everything(in: secrets).contains(TestPhone.token))
    }

    func testAWakeThatCannotReadTheStateChangesNothingAndALaterOneCatchesUp() async throws {
        let store = LockableStore()
        let secrets = InMemoryKeyValueStore()
        let before = try client(store: store, secrets: secrets)
        await before.start()
        try await before.track("workout.logged")
        await before.shutdown()
        let saved = store.inner.snapshot

        store.locked = true   // the phone restarted and was not unlocked yet
        let locked = try client(store: store, secrets: secrets)
        let plan = Payloads.plan("run-1/nudge", fireAt: FireAt(instant: clock.now.addingTimeInterval(3600), in: clock.timeZone))
        let outcome = await locked.handleRemoteNotification(payload: plan)
        XCTAssertEqual(outcome, .noData)
        let pending = await center.pendingRequests()
        XCTAssertTrue(pending.isEmpty, "nothing scheduled that could not be remembered")
        XCTAssertEqual(store.writesWhileLocked, 0, "nothing saved over the real state")
        XCTAssertEqual(store.inner.snapshot, saved)

        store.locked = false  // unlocked: the next push is handled, on top of the state as it was
        let answered = await locked.handleRemoteNotification(payload: plan)
        XCTAssertEqual(answered, .newData)
        let scheduled = await center.pendingRequests()
        XCTAssertEqual(scheduled.map(\.id), ["run-1/nudge"])
        let book = try XCTUnwrap(try store.value(PlanBook.self, forKey: "buzzkit.plans"))
        XCTAssertNotNil(book.records["run-1/nudge"], "the plan is remembered")
    }

    /// The install id is in the state: a launch before the first unlock that registered the
    /// device would tell the server a new install is on the token (which retires what the
    /// phone acknowledged). It registers once the state is read, with the install id it had.
    func testBeforeTheFirstUnlockTheDeviceIsNotRegisteredUnderAMadeUpInstallId() async throws {
        let store = LockableStore()
        let secrets = InMemoryKeyValueStore()
        let before = try client(store: store, secrets: secrets)
        await before.start()
        try await before.setDeviceToken(TestPhone.deviceToken)
        await before.settle()
        let first = try XCTUnwrap(registrations().last?["installId"])
        await before.shutdown()

        store.locked = true
        let locked = try client(store: store, secrets: secrets)
        await locked.start()
        try await locked.setDeviceToken(TestPhone.deviceToken)
        await locked.settle()
        XCTAssertEqual(registrations().count, 1, "no registration while the state cannot be read")

        store.locked = false
        await locked.applicationDidBecomeActive()
        await locked.settle()
        XCTAssertEqual(registrations().last?["installId"], first, "the same install, as the server knew it")
    }

    /// The bodies of the device registrations sent.
    private func registrations() -> [[String: JSONValue]] {
        transport.requests.filter { $0.method == "PUT" && $0.url.path.hasSuffix("/devices") }.compactMap {
            guard let data = $0.body, case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
            return body
        }
    }
}
