import CHTTPShims
import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: one epoll thread owns the sockets; each complete
/// request is suspended, handled by an async handler on the Swift runtime, and resumed with
/// its response, so a slow handler never blocks other connections.
public final class HTTPServer: @unchecked Sendable {
    /// Server settings.
    public struct Configuration: Sendable {
        /// IPv4 address to bind (`0.0.0.0` for every interface, `127.0.0.1` for loopback).
        public var host: String
        /// 0 picks a free port; read it back from ``HTTPServer/port``.
        public var port: Int
        /// Bodies larger than this get 413 without being buffered further.
        public var maxBodyBytes: Int
        public var connectionLimit: Int
        /// Idle seconds before a connection is closed (also one that sends nothing more in the
        /// middle of a request).
        public var connectionTimeout: Int
        /// Connections one client address (IPv4) may hold at once; 0 for no limit (behind a
        /// proxy or load balancer every client shares its address).
        public var perIPConnectionLimit: Int
        /// Seconds a request's headers and body may take to arrive, counted from when the
        /// connection began waiting for it (opened, or answered its previous request); a client
        /// that trickles bytes to keep an idle timer alive is cut off here. 0 for no deadline.
        public var requestTimeout: Int
        /// Looks at a request's method, path (still percent-encoded) and headers before any of
        /// its body is read (see ``HeaderVerdict``).
        public var headerCheck: (@Sendable (_ method: String, _ path: String, _ headers: [String: String]) -> HeaderVerdict)?

        public init(host: String = "0.0.0.0", port: Int = 8080, maxBodyBytes: Int = 1 << 20,
                    connectionLimit: Int = 4096, connectionTimeout: Int = 30, perIPConnectionLimit: Int = 0,
                    requestTimeout: Int = 30) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.connectionLimit = connectionLimit
            self.connectionTimeout = connectionTimeout
            self.perIPConnectionLimit = perIPConnectionLimit
            self.requestTimeout = requestTimeout
        }
    }

    /// What ``Configuration/headerCheck`` decides from a request's headers alone.
    public enum HeaderVerdict: Sendable {
        /// Read the body and handle the request.
        case proceed
        /// Send this response now; the body is never read into memory.
        case answer(HTTPResponse)
        /// Hold the connection, before any of the body is read, while this runs (for example
        /// a database lookup of credentials not seen before). A response it returns is sent
        /// and the body is dropped as it arrives, never buffered; nil lets the request go on.
        case verify(@Sendable () async -> HTTPResponse?)
    }

    /// One finished request, for access logs and metrics.
    public struct Completion: Sendable {
        public var method: String
        public var path: String
        public var status: Int
        public var seconds: Double
        public var requestId: String
    }

    public let configuration: Configuration
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let onComplete: (@Sendable (Completion) -> Void)?
    var daemon: OpaquePointer?
    /// The shim's per-address counters and request deadlines (freed after the daemon stops).
    var shim: UnsafeMutableRawPointer?
    let lock = NSLock()
    var inFlight = 0
    /// Requests suspended now, by their state (see `HTTPServer+Suspension`).
    var suspended: [ObjectIdentifier: (state: HTTPRequestState, connection: ConnectionBox)] = [:]
    /// Resumed connections libmicrohttpd has not called back for yet.
    var awaitingCall = 0
    var stopping = false
    private(set) public var port: Int = 0

    /// `handler` answers every request (usually ``Router/handle(_:)``); `onComplete` sees
    /// each finished request.
    public init(_ configuration: Configuration, onComplete: (@Sendable (Completion) -> Void)? = nil,
                handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.configuration = configuration
        self.handler = handler
        self.onComplete = onComplete
    }

    /// Binds and starts serving. Throws when the port is taken or the host is not an IPv4 address.
    public func start() throws {
        var address = in_addr()
        guard inet_pton(AF_INET, configuration.host, &address) == 1 else {
            throw HTTPError(status: 500, code: "bad_host", message: "\(configuration.host) is not an IPv4 address", field: "host")
        }
        // libmicrohttpd's threads inherit this mask: termination signals stay with the process's own handler.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let shim = bk_mhd_shim_create(UInt32(max(0, configuration.perIPConnectionLimit)), UInt32(max(0, configuration.requestTimeout))) else {
            throw HTTPError(status: 500, code: "start_failed", message: "cannot allocate the connection table or start its watchdog thread")
        }
        self.shim = shim
        daemon = bk_mhd_start(UInt16(configuration.port), address.s_addr, UInt32(configuration.connectionLimit),
                              UInt32(configuration.connectionTimeout), shim, httpAccessHandler, context, httpCompletedHandler, context)
        guard let daemon else {
            bk_mhd_free_shim(shim)
            self.shim = nil
            throw HTTPError(status: 500, code: "bind_failed", message: "cannot listen on \(configuration.host):\(configuration.port) (port in use?)", field: "port")
        }
        port = Int(bk_mhd_bound_port(daemon))
    }

    /// Stops accepting connections and refuses new requests on open ones (`503`), waits up to
    /// `grace` seconds for requests in flight to be answered, answers those still running with
    /// `503`, then stops the daemon.
    public func stop(grace: TimeInterval = 10) {
        lock.lock()
        let running = daemon
        daemon = nil
        lock.unlock()
        guard let daemon = running else { return }
        lock.withLock { stopping = true }  // requests on open connections are refused from now on
        let listener = MHD_quiesce_daemon(daemon)
        let deadline = Date().addingTimeInterval(grace)
        while requestsInFlight > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        answerSuspended()
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        lock.lock()
        bk_mhd_free_shim(shim)
        shim = nil
        lock.unlock()
    }

    /// Requests being handled now.
    public var requestsInFlight: Int {
        lock.lock(); defer { lock.unlock() }
        return inFlight
    }

    deinit { stop(grace: 0) }
}

/// Per-request state, owned by libmicrohttpd's connection slot between callbacks.
final class HTTPRequestState: @unchecked Sendable {
    var body = Data()
    var tooLarge = false
    /// Answered from its headers alone (``HTTPServer/Configuration/headerCheck``): the body is
    /// never read.
    var refusedEarly = false
    /// The headers, when the header check already read them.
    var headers: [String: String]?
    /// The header check's verification ran and the call after it has not come yet.
    var verifying = false
    /// What the header check's verification answered: sent once the request is in, its body
    /// dropped unbuffered.
    var refusal: HTTPResponse?
    /// Resumed; libmicrohttpd has not called back yet.
    var awaitingCall = false
    var started = false
    var response: HTTPResponse?
    var request: HTTPRequest?
    var startedAt = Date()
    let lock = NSLock()

    func withLock<T>(_ body: (HTTPRequestState) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(self)
    }
}
