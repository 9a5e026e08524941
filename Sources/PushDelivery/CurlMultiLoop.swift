import CCurl
import CPushShims
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// libcurl's multi interface on one dedicated thread: every HTTP/2 request of a provider runs
/// here, multiplexed over a small pool of long-lived TLS connections.
///
/// Other threads hand requests in with ``submit(_:after:completion:)`` (a locked queue plus
/// `curl_multi_wakeup`); the thread adds them to the multi handle (at once, or when their
/// delay is over: that is how retries back off without blocking anyone), drives
/// `curl_multi_perform`/`curl_multi_poll`, and calls each completion on this thread when its
/// transfer is done. Completions must be quick and must not block; they may submit again.
///
/// Connection pool: `CURLMOPT_MAX_HOST_CONNECTIONS` caps connections per host, and
/// `CURLOPT_PIPEWAIT` makes new requests wait for a multiplexed stream on an existing
/// connection rather than open another, so steady traffic stays on the same connections.
/// `CURLOPT_MAXAGE_CONN` keeps idle connections reusable (curl's default drops them after
/// 118 s idle, which would churn connections at low traffic).
final class CurlMultiLoop: @unchecked Sendable {
    /// Handle-wide settings.
    struct Settings: Sendable {
        var maxConnectionsPerHost = 2
        var maxConcurrentStreams = 1000
        var connectTimeout: TimeInterval = 10
        var requestTimeout: TimeInterval = 30
        var idleConnectionLifetime: TimeInterval = 3600
        /// Extra CA certificates to trust besides the system's, or `nil`.
        var trustedCertificates: TrustedCertificates?
    }

    /// A request waiting to start.
    struct PendingRequest {
        let request: HTTPRequest
        let due: ContinuousClock.Instant
        let completion: @Sendable (HTTPResponse) -> Void
    }

    let settings: Settings
    let multiHandle: UnsafeMutableRawPointer
    private let lock = NSLock()
    private let stopped = DispatchSemaphore(value: 0)
    // Guarded by `lock`.
    private var incoming: [PendingRequest] = []
    private var closing = false
    private var loopThread: pthread_t?
    private var threadCPU: TimeInterval = 0
    private var connectsTotal = 0
    private var requestsTotal = 0
    private var idleHandles: [UnsafeMutableRawPointer] = []
    // Loop thread only.
    var delayedRequests: [PendingRequest] = []
    var activeTransfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// Creates the multi handle and starts the loop thread.
    init(settings: Settings, name: String = "apns-curl") throws {
        try PushDeliveryError.checkCurl(curl_global_init(Int(CURL_GLOBAL_DEFAULT)), "curl_global_init")
        guard let multi = curl_multi_init() else {
            throw PushDeliveryError(.curl, context: "curl_multi_init", message: "libcurl returned no handle")
        }
        self.settings = settings
        self.multiHandle = multi
        do {
            let perHost = max(1, settings.maxConnectionsPerHost)
            try PushDeliveryError.checkCurl(bk_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
                                            "CURLMOPT_PIPELINING")
            try PushDeliveryError.checkCurl(bk_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost),
                                            "CURLMOPT_MAX_HOST_CONNECTIONS")
            try PushDeliveryError.checkCurl(bk_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, perHost * 2 + 2),
                                            "CURLMOPT_MAXCONNECTS")
            try PushDeliveryError.checkCurl(bk_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS,
                                                                      max(1, settings.maxConcurrentStreams)),
                                            "CURLMOPT_MAX_CONCURRENT_STREAMS")
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Queues `request`, to start after `delay` seconds; `completion` runs on the loop thread.
    /// After ``close()``, completes at once with a transport failure.
    func submit(_ request: HTTPRequest, after delay: TimeInterval = 0,
                completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let due = ContinuousClock.now + .milliseconds(Int64(max(0, delay) * 1000))
        let accepted = lock.withLock { () -> Bool in
            guard !closing else { return false }
            incoming.append(PendingRequest(request: request, due: due, completion: completion))
            return true
        }
        if accepted {
            curl_multi_wakeup(multiHandle)
        } else {
            completion(.failure("closed: the provider was shut down"))
        }
    }

    /// CPU time used by the loop thread so far (`CLOCK_THREAD_CPUTIME_ID`), in seconds.
    var cpuTime: TimeInterval { lock.withLock { threadCPU } }
    /// Connections opened so far (sum of `CURLINFO_NUM_CONNECTS`).
    var connectionsOpened: Int { lock.withLock { connectsTotal } }
    /// Requests finished so far (answered or failed).
    var requestsFinished: Int { lock.withLock { requestsTotal } }

    /// Stops the loop: queued and running requests complete with a transport failure, the
    /// connections close. Waits for the thread unless called on it. Idempotent.
    func close() {
        let (first, thread) = lock.withLock { () -> (Bool, pthread_t?) in
            defer { closing = true }
            return (!closing, loopThread)
        }
        guard first else { return }
        curl_multi_wakeup(multiHandle)
        if let thread, pthread_equal(thread, pthread_self()) != 0 { return }
        stopped.wait()
    }

    private func run() {
        lock.withLock { loopThread = pthread_self() }
        while true {
            let (fresh, stop) = lock.withLock { () -> ([PendingRequest], Bool) in
                defer { incoming.removeAll(keepingCapacity: true) }
                return (incoming, closing)
            }
            if stop { break }
            for pending in fresh { schedule(pending) }
            startDueTransfers()
            var running: Int32 = 0
            _ = curl_multi_perform(multiHandle, &running)
            finishDoneTransfers()
            curl_multi_poll(multiHandle, nil, 0, pollTimeoutMilliseconds(), nil)
            let cpu = threadCPUSeconds()
            lock.withLock { threadCPU = cpu }
        }
        shutDown()
        stopped.signal()
    }

    /// Takes the requests submitted but not yet picked up (at shutdown).
    func drainIncoming() -> [PendingRequest] {
        lock.withLock {
            defer { incoming.removeAll() }
            return incoming
        }
    }

    /// An easy handle finished earlier, for reuse, if any.
    func takeIdleHandle() -> UnsafeMutableRawPointer? {
        lock.withLock { idleHandles.popLast() }
    }

    /// Keeps a finished easy handle for reuse (up to 512), or frees it.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        let kept = lock.withLock { () -> Bool in
            guard idleHandles.count < 512 else { return false }
            idleHandles.append(easy)
            return true
        }
        if !kept { curl_easy_cleanup(easy) }
    }

    /// Takes every idle easy handle (at shutdown).
    func drainIdleHandles() -> [UnsafeMutableRawPointer] {
        lock.withLock {
            defer { idleHandles.removeAll() }
            return idleHandles
        }
    }

    /// Counts a finished request and the connections it opened.
    func countFinished(connects: Int) {
        lock.withLock {
            requestsTotal += 1
            connectsTotal += connects
        }
    }
}
