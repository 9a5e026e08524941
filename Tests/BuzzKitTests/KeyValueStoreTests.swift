import BuzzKitWire
import BuzzTesting
import Foundation
import XCTest
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// The file store persists across instances (a restart) and the client restores its state
/// from it.
final class KeyValueStoreTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("buzzkit-tests-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func testValuesSurviveANewStoreOverTheSameDirectory() throws {
        let first = try FileKeyValueStore(directory: directory)
        try first.setValue(["a": 1], forKey: "buzzkit.test/key")
        let second = try FileKeyValueStore(directory: directory)
        XCTAssertEqual(try second.value([String: Int].self, forKey: "buzzkit.test/key"), ["a": 1])
        XCTAssertEqual(second.fileURL(for: "buzzkit.test/key").lastPathComponent, "buzzkit.test_key.json")
        try second.setData(nil, forKey: "buzzkit.test/key")
        XCTAssertNil(try first.data(forKey: "buzzkit.test/key"))
        XCTAssertNil(try first.data(forKey: "never.written"))
    }

    func testCorruptValueIsAStorageError() throws {
        let store = try FileKeyValueStore(directory: directory)
        try store.setData(Data("{not json".utf8), forKey: "k")
        XCTAssertThrowsError(try store.value([String: Int].self, forKey: "k")) { error in
            XCTAssertEqual((error as? BuzzKitError)?.code, .storage)
        }
    }

    func testClientStateSurvivesARestartOnDisk() async throws {
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let center = InMemoryNotificationCenter(clock: clock)
        let network = NetworkConditionedTransport(wrapping: RecordingTransport(), online: false)
        let configuration = TestPhone.configuration()
        func makeClient() throws -> BuzzKitClient {
            try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
                notificationCenter: center, clock: clock, store: try FileKeyValueStore(directory: directory), transport: network))
        }
        let first = try makeClient()
        let fireAt = FireAt(instant: TestPhone.start.addingTimeInterval(3_600), in: TestPhone.berlin)
        await first.handleRemoteNotification(payload: Payloads.plan("run-1/a", fireAt: fireAt, cancelOn: ["done"]))
        try await first.track("other")
        await first.shutdown()

        let second = try makeClient()
        await second.start()
        let queued = await second.queuedEvents
        XCTAssertEqual(queued.map(\.event), ["$local.scheduled", "other"])
        let book = await second.planBook
        XCTAssertEqual(book.registry.localIds(for: "done"), ["run-1/a"])
        try await second.track("done")
        let pending = await center.pendingRequests()
        XCTAssertTrue(pending.isEmpty)
    }

    func testUnreadableStateIsReportedAndTheClientStartsClean() async throws {
        let store = InMemoryKeyValueStore(["buzzkit.events": Data("garbage".utf8)])
        let clock = ManualClock(now: TestPhone.start, timeZone: TestPhone.berlin)
        let configuration = TestPhone.configuration()
        let client = try BuzzKitClient(configuration: configuration, ports: BuzzKitPorts(
            notificationCenter: InMemoryNotificationCenter(clock: clock), clock: clock, store: store, transport: RecordingTransport()))
        let log = ActivityLog()
        await client.setActivityObserver { log.record($0) }
        await client.start()
        XCTAssertTrue(log.all.contains { if case .error(let error) = $0 { return error.code == .storage } else { return false } })
        let queued = await client.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }
}
