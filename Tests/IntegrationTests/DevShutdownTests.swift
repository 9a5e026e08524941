import BuzzServer
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `buzzkit dev` runs the API, every worker and the scheduler in one process. SIGTERM while
/// clients are posting events: it stops them all under one deadline and exits 0 within
/// `BUZZKIT_SHUTDOWN_GRACE_SECONDS`, and every event it answered `202` is processed.
final class DevShutdownTests: XCTestCase {
    func testDevUnderLoadExitsWithinItsGraceAndKeepsWhatItAccepted() throws {
        let harness = try PipelineHarness(workers: [], startScheduler: false)
        defer { harness.shutdown() }
        let grace = 3.0
        let port = try Self.freePort()
        var environment = TestServices.processEnvironment(schema: harness.schema)
        environment["BUZZKIT_HTTP_PORT"] = "\(port)"
        environment["BUZZKIT_SHUTDOWN_GRACE_SECONDS"] = "\(Int(grace))"
        let dev = Process()
        dev.executableURL = TestServices.repositoryRoot.appendingPathComponent(".build/debug/buzzkit")
        dev.arguments = ["dev"]
        dev.environment = environment
        let logPath = NSTemporaryDirectory() + "buzzkit-dev-shutdown-\(harness.schema).log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        dev.standardError = FileHandle(forWritingAtPath: logPath)
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        try dev.run()
        defer { if dev.isRunning { kill(dev.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        XCTAssertTrue(TestServices.eventually(timeout: 30) { Self.status("GET", base + "/readyz") == 200 }, "dev came up")

        // Four clients post events with their own ids until the process is gone.
        let accepted = AcceptedIds()
        let key = harness.credentials.secretKey
        let clients = TestServices.threads(4) { client in
            var n = 0
            while dev.isRunning {
                n += 1
                let id = "c\(client)-\(n)"
                let body = ["id": id, "event": "page.viewed", "subscriberId": "u\(n % 20)"]
                if Self.status("POST", base + "/v1/events", body: body, key: key) == 202 { accepted.add(id) }
            }
        }
        XCTAssertTrue(TestServices.eventually(timeout: 30) { accepted.count >= 300 }, "the clients are busy")

        let signalled = Date()
        kill(dev.processIdentifier, SIGTERM)
        dev.waitUntilExit()
        let took = Date().timeIntervalSince(signalled)
        clients.wait()
        XCTAssertEqual(dev.terminationStatus, 0, "dev exits cleanly; its log ends:\n"
                       + ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").prefix(60).joined(separator: "\n"))
        XCTAssertLessThanOrEqual(took, grace + 0.5, "gone within BUZZKIT_SHUTDOWN_GRACE_SECONDS (\(grace) s) of SIGTERM, not once per part")

        // Workers started afterwards take what dev left in the queue: every accepted event is processed.
        harness.startWorkers([.trigger])
        let ids = accepted.all
        func processed() throws -> Set<String> {
            Set(try harness.pool.withConnection { db in
                try db.query("SELECT event_id FROM processed_events WHERE tenant_id = \(harness.tenantId)").map { String(try $0.decode("event_id", as: String.self).dropFirst(3)) }
            })
        }
        XCTAssertTrue(try TestServices.eventually(timeout: 60) { try processed().isSuperset(of: ids) },
                      "\(ids.count) events were answered 202; all of them are processed")
    }

    /// A blocking HTTP call; 0 when there was no answer.
    static func status(_ method: String, _ url: String, body: [String: String]? = nil, key: String? = nil) -> Int {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 10)
        request.httpMethod = method
        if let body { request.httpBody = try? JSONSerialization.data(withJSONObject: body) }
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let done = DispatchSemaphore(value: 0)
        let box = ResponseBox()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.set(APIHarness.Response(status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data ?? Data()))
            done.signal()
        }.resume()
        done.wait()
        return box.value?.status ?? 0
    }

    /// A port no one listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw NSError(domain: "no free port", code: Int(errno)) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Event ids the API answered 202, from several client threads.
final class AcceptedIds: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: Set<String> = []
    func add(_ id: String) { lock.withLock { _ = ids.insert(id) } }
    var count: Int { lock.withLock { ids.count } }
    var all: Set<String> { lock.withLock { ids } }
}
