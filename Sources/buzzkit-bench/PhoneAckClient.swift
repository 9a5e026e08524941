import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The phones' acknowledgments, posted to the API as the SDK posts them: one
/// `$local.scheduled` a request to `POST /v1/events`, with the tenant's publishable key and
/// the subscriber's token. The API records them in PostgreSQL before its `202`; none goes
/// through RabbitMQ.
///
/// Every byte is moved on the calling thread (nonblocking sockets over keep-alive HTTP/1.1
/// connections, and `poll`), so what the requests cost the bench's driver is that
/// thread's CPU, counted apart from the product's: the API they reach runs in the product.
/// A request answered 429 or 5xx is sent again, as the SDK retries; one that fails
/// ``maxAttempts`` times, or any other answer, is counted in ``refused``.
final class PhoneAckClient {
    /// Where the phones post: the API's port on 127.0.0.1 and the tenant whose keys they hold.
    struct Endpoint {
        var port: Int
        var credentials: TenantCredentials
        /// The API process's metrics (its requests, and its transactions of devices' words).
        var metrics: Metrics
    }

    static let maxAttempts = 5

    private struct Request {
        var bytes: [UInt8]
        var attempts = 0
        /// When the phone queued it (`systemUptime`): its answer's wait counts from here.
        var queuedAt = ProcessInfo.processInfo.systemUptime
    }

    private final class Connection {
        var fd: Int32 = -1
        var request: Request?
        var written = 0
        var received: [UInt8] = []
    }

    private let endpoint: Endpoint
    private let tokenExpiry = Int(Date().timeIntervalSince1970) + 3600
    private var queue: [Request] = []
    private var next = 0
    private var connections: [Connection]
    /// Requests answered 202.
    private(set) var accepted = 0
    /// Requests given up on, by the last status seen (0: no answer).
    private(set) var refused: [Int: Int] = [:]
    /// Requests sent again after a 429, a 5xx or a dropped connection.
    private(set) var retried = 0
    /// Seconds from each accepted request's queueing (the push seen) to its `202`, retries included.
    private(set) var waits: [Double] = []

    init(_ endpoint: Endpoint, connections: Int) {
        self.endpoint = endpoint
        self.connections = (0..<max(1, connections)).map { _ in Connection() }
    }

    deinit { for connection in connections where connection.fd >= 0 { Glibc.close(connection.fd) } }

    /// Queues a device's acknowledgment of the plan `localId` (message `messageId`) pushed to it.
    func acknowledge(subscriberId: String, localId: String, messageId: String, device: String) {
        let event = BuzzEvent(event: BuzzEvent.localScheduled, subscriberId: subscriberId,
                              properties: ["localId": .string(localId), "messageId": .string(messageId), "device": .string(device)],
                              timestamp: Date())
        let body = event.jsonData
        let token = TenantCredentials.subscriberToken(signingSecret: endpoint.credentials.signingSecret, subscriberId: subscriberId,
                                                      expiresAt: tokenExpiry)
        let head = "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(endpoint.credentials.publishableKey)\r\n"
            + "X-BuzzKit-Subscriber-Token: \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        queue.append(Request(bytes: Array(head.utf8) + body))
    }

    /// Nothing queued and nothing in flight.
    var idle: Bool { next == queue.count && connections.allSatisfy { $0.request == nil } }

    /// Moves requests and answers for `seconds` (returns early once idle).
    func pump(for seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            for connection in connections where connection.request == nil { start(connection) }
            if next == queue.count, next > 4096 { queue.removeAll(keepingCapacity: true); next = 0 }
            let left = deadline.timeIntervalSinceNow
            if idle || left <= 0 { return }
            var fds = connections.map { connection -> pollfd in
                let events: Int16 = connection.request == nil ? 0
                    : (connection.written < connection.request!.bytes.count ? Int16(POLLOUT) : Int16(POLLIN))
                return pollfd(fd: connection.request == nil ? -1 : connection.fd, events: events, revents: 0)
            }
            guard poll(&fds, nfds_t(fds.count), Int32(max(1, left * 1000))) > 0 else { continue }
            for (index, polled) in fds.enumerated() where polled.revents != 0 {
                let connection = connections[index]
                if polled.revents & Int16(POLLOUT) != 0 { write(connection) } else { read(connection) }
            }
        }
    }

    /// Gives `connection` the next queued request, opening it first if need be.
    private func start(_ connection: Connection) {
        guard next < queue.count else { return }
        if connection.fd < 0 {
            guard let fd = Self.connect(port: endpoint.port) else { return }
            connection.fd = fd
        }
        connection.request = queue[next]
        next += 1
        connection.written = 0
        connection.received.removeAll(keepingCapacity: true)
        write(connection)
    }

    private func write(_ connection: Connection) {
        guard let request = connection.request else { return }
        let sent = request.bytes.withUnsafeBytes { bytes in
            Glibc.send(connection.fd, bytes.baseAddress! + connection.written, bytes.count - connection.written, Int32(MSG_NOSIGNAL))
        }
        if sent > 0 { connection.written += sent } else if sent < 0, errno != EAGAIN, errno != EINTR { drop(connection) }
    }

    private func read(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(connection.fd, $0.baseAddress!, $0.count, 0) }
        if count < 0, errno == EAGAIN || errno == EINTR { return }
        guard count > 0 else { drop(connection); return }
        connection.received += buffer[..<count]
        guard let (status, length) = Self.answer(connection.received) else { return }
        guard connection.received.count >= length else { return }
        let request = connection.request!
        connection.request = nil
        connection.received.removeAll(keepingCapacity: true)
        if status == 202 {
            accepted += 1
            waits.append(ProcessInfo.processInfo.systemUptime - request.queuedAt)
        } else if status == 429 || status >= 500 {
            requeue(request, status: status)
        } else {
            refused[status, default: 0] += 1
        }
    }

    /// The connection closed or failed with a request on it: the request goes again on a new one.
    private func drop(_ connection: Connection) {
        Glibc.close(connection.fd)
        connection.fd = -1
        if let request = connection.request { requeue(request, status: 0) }
        connection.request = nil
    }

    private func requeue(_ request: Request, status: Int) {
        var again = request
        again.attempts += 1
        guard again.attempts < Self.maxAttempts else { refused[status, default: 0] += 1; return }
        retried += 1
        queue.append(again)
    }

    /// The status and the whole answer's length in bytes, once its head has arrived.
    static func answer(_ bytes: [UInt8]) -> (status: Int, length: Int)? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let headEnd = (0...(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual(end) }) else { return nil }
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("http/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            return (0, bytes.count)
        }
        let length = lines.dropFirst().first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
        return (status, headEnd + 4 + length)
    }

    private static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { Glibc.close(fd); return nil }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }
}
