import BuzzCrypto
import CNGHTTP2
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One client connection of the stand-in, on its own thread: TLS (OpenSSL, non-blocking
/// socket) carrying an HTTP/2 server session (libnghttp2, fed through its memory interface).
///
/// The loop waits with `poll` for input, room to write, or the next delayed answer; reads
/// decrypted bytes into `nghttp2_session_mem_recv` (which calls the callbacks that collect
/// requests and submit answers); and writes what `nghttp2_session_mem_send` produces. Any
/// protocol error, garbage, or end of input ends this connection only.
final class StandInConnection: @unchecked Sendable {
    /// A handshake slower than this fails (a silent or slow client cannot hold a thread).
    static let handshakeTimeout: Duration = .seconds(10)

    let fd: Int32
    let number: Int
    let server: APNsStandIn
    private let ssl: OpaquePointer
    // Connection thread only.
    var session: OpaquePointer?
    var streams: [Int32: StandInStream] = [:]
    var delayedAnswers: [(due: ContinuousClock.Instant, stream: Int32, answer: StandInAnswer)] = []
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    private var readBuffer = [UInt8](repeating: 0, count: 32 * 1024)

    init(fd: Int32, number: Int, server: APNsStandIn, tls: TLSServerContext) throws {
        guard let ssl = SSL_new(tls.pointer) else { throw APNsStandInError.openSSL("SSL_new") }
        self.ssl = ssl
        self.fd = fd
        self.number = number
        self.server = server
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            throw APNsStandInError.openSSL("SSL_set_fd")
        }
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        SSL_free(ssl)
    }

    /// Serves the connection until it ends; closes the socket.
    func run() {
        defer { server.connectionEnded(self) }
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard handshake(), negotiatedHTTP2() else {
            server.countFailedHandshake()
            _ = OpenSSLErrorQueue.drain()
            return
        }
        server.countEstablished()
        do {
            try startSession()
        } catch {
            return
        }
        serve()
        _ = OpenSSLErrorQueue.drain()
    }

    private func handshake() -> Bool {
        let deadline = ContinuousClock.now + Self.handshakeTimeout
        while !server.isStopping {
            let result = SSL_accept(ssl)
            if result == 1 { return true }
            let events: Int16
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default: return false
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            guard wait(for: events, milliseconds: Int32(min(1000, left.components.seconds * 1000 + 1))) else {
                return false
            }
        }
        return false
    }

    /// True when ALPN chose `h2`. A client that sent no ALPN at all gets through the handshake
    /// (the select callback never runs), so this is checked afterwards.
    private func negotiatedHTTP2() -> Bool {
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, length == 2 else { return false }
        return protocolName[0] == UInt8(ascii: "h") && protocolName[1] == UInt8(ascii: "2")
    }

    /// The event loop after the handshake.
    private func serve() {
        guard let session else { return }
        while true {
            if server.isStopping && !goAway() { return }
            guard fillOutbox(), flushOutbox() else { return }
            if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
                && outboxStart >= outbox.count { return }
            var events = Int16(POLLIN)
            if outboxStart < outbox.count { events |= Int16(POLLOUT) }
            let timeout: Int32 = SSL_pending(ssl) > 0 ? 0 : delayedAnswerTimeout()
            guard wait(for: events, milliseconds: timeout) else { return }
            guard readAvailable() else { return }
            submitDueAnswers()
        }
    }

    /// Polls the socket; `false` on a poll failure other than an interruption.
    private func wait(for events: Int16, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let result = poll(&descriptor, 1, milliseconds)
        return result >= 0 || errno == EINTR
    }

    /// Reads and feeds everything OpenSSL can give now; `false` when the connection ended.
    private func readAvailable() -> Bool {
        guard let session else { return false }
        while true {
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                let fed = readBuffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                if fed < 0 { return false }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return true
            default: return false
            }
        }
    }

    /// Moves nghttp2's pending output into the outbox (up to 1 MiB buffered).
    private func fillOutbox() -> Bool {
        guard let session else { return false }
        while outbox.count - outboxStart < 1 << 20 {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 { return false }
            guard length > 0, let data else { break }
            outbox.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        }
        return true
    }

    /// Writes as much of the outbox as the socket takes; `false` when the connection broke.
    private func flushOutbox() -> Bool {
        while outboxStart < outbox.count {
            let written = outbox.withUnsafeBytes { bytes in
                SSL_write(ssl, bytes.baseAddress! + outboxStart, Int32(min(bytes.count - outboxStart, 1 << 20)))
            }
            if written > 0 {
                outboxStart += Int(written)
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return true
            default: return false
            }
        }
        outbox.removeAll(keepingCapacity: outbox.capacity <= 1 << 20)
        outboxStart = 0
        return true
    }

    /// On stop: GOAWAY (`NO_ERROR`), one last flush, then end.
    private func goAway() -> Bool {
        if let session { _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue)) }
        _ = fillOutbox()
        _ = flushOutbox()
        return false
    }
}
