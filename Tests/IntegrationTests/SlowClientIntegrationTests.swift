import BuzzServer
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Clients that hold connections instead of sending requests: one address cannot take every
/// connection, a request that stops arriving is cut off, and one without credentials is
/// answered before its body.
final class SlowClientIntegrationTests: APITestCase {
    override func makeHarness() throws -> APIHarness {
        try APIHarness(workers: false) {
            $0.httpIdleSeconds = 2
            $0.httpRequestSeconds = 3
            $0.httpConnectionsPerIP = 4
        }
    }

    /// A TCP connection to the API, optionally sending `bytes`.
    func connect(sending bytes: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(api.server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw NSError(domain: "connect to the API", code: Int(errno)) }
        if let bytes { _ = bytes.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
        return fd
    }

    /// Whether the server closed `fd` within `seconds` (a read returns end of file or an error).
    func closedByServer(_ fd: Int32, within seconds: Double) -> Bool {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// A request without a valid-looking key is answered before its body is read.
    func testARequestWithoutAKeyIsAnsweredBeforeItsBody() throws {
        let fd = try connect(sending: "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n{")
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = recv(fd, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(n, 0, "answered although 999,999 bytes of the body never came")
        XCTAssertTrue(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 401"))
    }

    func testOneAddressCannotHoldMoreThanItsShareOfConnections() throws {
        let held = try (0..<4).map { _ in try connect() }
        Thread.sleep(forTimeInterval: 0.2)  // the server has taken them on
        let extra = try connect(sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        defer { close(extra) }
        XCTAssertTrue(closedByServer(extra, within: 1), "the fifth connection from the same address is turned away")
        held.forEach { close($0) }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(api.call("GET", "/healthz").status, 200, "free again once they are closed")
        // And again, so the counts went down rather than the server giving up.
        let again = try (0..<4).map { _ in try connect() }
        Thread.sleep(forTimeInterval: 0.2)
        let fifth = try connect(sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(closedByServer(fifth, within: 1))
        close(fifth)
        again.forEach { close($0) }
    }

    func testARequestThatStopsArrivingIsCutOff() throws {
        let slow = try connect(sending: "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(api.secretKey)\r\nContent-Length: 100\r\n\r\n{\"event\"")
        defer { close(slow) }
        let started = Date()
        XCTAssertTrue(closedByServer(slow, within: 5), "closed after the idle timeout")
        XCTAssertLessThan(Date().timeIntervalSince(started), 4.5)
        XCTAssertEqual(api.call("GET", "/healthz").status, 200)
    }

    /// Slowloris: one byte of a header every 0.8 s keeps the idle timer from ever firing, but
    /// the request as a whole has 3 s to arrive.
    func testARequestTrickledByteByByteIsCutOffAtItsDeadline() throws {
        let slow = try connect(sending: "POST /v1/events HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        defer { close(slow) }
        let started = Date()
        var closed = false
        while !closed && Date().timeIntervalSince(started) < 10 {
            let sent = send(slow, "a", 1, Int32(MSG_NOSIGNAL))
            closed = sent < 0 || closedByServer(slow, within: 0.8)
        }
        let after = Date().timeIntervalSince(started)
        XCTAssertTrue(closed, "a request still arriving after 10 s was not cut off")
        XCTAssertGreaterThan(after, 2.5, "cut off before its deadline")
        XCTAssertLessThan(after, 5, "cut off within a second or so of its 3 s deadline")
        XCTAssertEqual(api.call("GET", "/healthz").status, 200)
    }

    /// A keep-alive connection gets the deadline afresh for each request: a handler that takes
    /// its time does not count against the next request.
    func testAKeptAliveConnectionGetsAFreshDeadlinePerRequest() throws {
        let fd = try connect()
        defer { close(fd) }
        for round in 0..<3 {
            let request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = recv(fd, &buffer, buffer.count, 0)
            XCTAssertTrue(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 200"), "round \(round)")
            Thread.sleep(forTimeInterval: 1.5)  // 4.5 s in all: past one deadline, within each idle timeout
        }
    }

    /// A key never seen is looked up before the body is taken in; an unknown one is refused
    /// without waiting for its body.
    func testANeverSeenKeyIsRefusedBeforeItsBody() throws {
        let fd = try connect(sending: "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_abcdef987654_0123456789abcdef\r\n"
                                      + "Content-Length: 1000000\r\n\r\n{")
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = recv(fd, &buffer, buffer.count, 0)
        let answer = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 401"), "answered although 999,999 bytes of the body never came: \(answer)")
        XCTAssertTrue(answer.contains("invalid_key"), answer)
    }

    /// A refused request with a small body keeps its connection: a client sending bad
    /// credentials again and again does not cost a new connection each time.
    func testARefusedSmallRequestKeepsItsConnection() throws {
        let body = #"{"event":"a.b","subscriberId":"u"}"#
        let request = "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nonsense\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let fd = try connect()
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        for round in 0..<3 {
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = recv(fd, &buffer, buffer.count, 0)
            XCTAssertTrue(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("HTTP/1.1 401"), "round \(round) on the same connection")
        }
    }
}
