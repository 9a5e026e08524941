import CCurl
import CPushShims
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CurlMultiLoop {
    /// Handle-wide options, set once per easy handle (they survive reuse).
    func makeEasyHandle() throws -> UnsafeMutableRawPointer {
        if let reused = takeIdleHandle() { return reused }
        guard let easy = curl_easy_init() else {
            throw PushDeliveryError(.curl, context: "curl_easy_init", message: "libcurl returned no handle")
        }
        do {
            let longs: [(CURLoption, Int, String)] = [
                (CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS), "CURLOPT_HTTP_VERSION"),
                (CURLOPT_PIPEWAIT, 1, "CURLOPT_PIPEWAIT"),
                (CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL"),
                (CURLOPT_TCP_KEEPALIVE, 1, "CURLOPT_TCP_KEEPALIVE"),
                (CURLOPT_CONNECTTIMEOUT_MS, Int(settings.connectTimeout * 1000), "CURLOPT_CONNECTTIMEOUT_MS"),
                (CURLOPT_TIMEOUT_MS, Int(settings.requestTimeout * 1000), "CURLOPT_TIMEOUT_MS"),
                (CURLOPT_MAXAGE_CONN, Int(settings.idleConnectionLifetime), "CURLOPT_MAXAGE_CONN"),
                (CURLOPT_SSL_VERIFYPEER, 1, "CURLOPT_SSL_VERIFYPEER"),
                (CURLOPT_SSL_VERIFYHOST, 2, "CURLOPT_SSL_VERIFYHOST"),
            ]
            for (option, value, name) in longs {
                try PushDeliveryError.checkCurl(bk_curl_easy_setopt_long(easy, option, value), name)
            }
            if let trusted = settings.trustedCertificates {
                // The loop's settings keep `trusted` alive as long as any easy handle exists.
                try PushDeliveryError.checkCurl(bk_curl_easy_setopt_ssl_ctx_callback(easy, CURLOPT_SSL_CTX_FUNCTION,
                                                                                     curlInstallTrustedCertificates),
                                                "CURLOPT_SSL_CTX_FUNCTION")
                try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_SSL_CTX_DATA,
                                                                            Unmanaged.passUnretained(trusted).toOpaque()),
                                                "CURLOPT_SSL_CTX_DATA")
            }
        } catch {
            curl_easy_cleanup(easy)
            throw error
        }
        return easy
    }

    /// Starts `pending` now or keeps it until its time (sorted by due time).
    func schedule(_ pending: PendingRequest) {
        if pending.due <= ContinuousClock.now {
            start(pending)
        } else {
            let index = delayedRequests.firstIndex { $0.due > pending.due } ?? delayedRequests.endIndex
            delayedRequests.insert(pending, at: index)
        }
    }

    /// Starts every delayed request whose time has come.
    func startDueTransfers() {
        let now = ContinuousClock.now
        var due = 0
        while due < delayedRequests.count && delayedRequests[due].due <= now { due += 1 }
        guard due > 0 else { return }
        let ready = delayedRequests.prefix(due)
        delayedRequests.removeFirst(due)
        for pending in ready { start(pending) }
    }

    /// How long `curl_multi_poll` may sleep: until the next delayed request, at most 1 s
    /// (libcurl shortens it further for its own timers).
    func pollTimeoutMilliseconds() -> Int32 {
        guard let next = delayedRequests.first else { return 1000 }
        let wait = next.due - ContinuousClock.now
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        return Int32(min(1000, max(0, milliseconds + 1)))
    }

    private func start(_ pending: PendingRequest) {
        do {
            let easy = try makeEasyHandle()
            let transfer = CurlTransfer(easy: easy, request: pending.request, completion: pending.completion)
            do {
                try transfer.configure()
                try PushDeliveryError.checkCurl(curl_multi_add_handle(multiHandle, easy), "curl_multi_add_handle")
            } catch {
                curl_easy_cleanup(easy)
                throw error
            }
            activeTransfers[easy] = transfer
        } catch {
            countFinished(connects: 0)
            pending.completion(.failure("\(error)"))
        }
    }

    /// Completes every transfer libcurl reports done.
    func finishDoneTransfers() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multiHandle, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = bk_curl_msg_result(message)
            curl_multi_remove_handle(multiHandle, easy)
            guard let transfer = activeTransfers.removeValue(forKey: easy) else { continue }
            let response = transfer.response(result: result)
            recycle(easy)
            countFinished(connects: response.newConnections)
            transfer.completion(response)
        }
    }

    /// Fails everything still queued or running and frees libcurl's handles.
    func shutDown() {
        let leftovers = drainIncoming()
        for pending in leftovers + delayedRequests {
            pending.completion(.failure("closed: the provider was shut down"))
        }
        delayedRequests.removeAll()
        for (easy, transfer) in activeTransfers {
            curl_multi_remove_handle(multiHandle, easy)
            curl_easy_cleanup(easy)
            transfer.completion(.failure("closed: the provider was shut down"))
        }
        activeTransfers.removeAll()
        for easy in drainIdleHandles() { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multiHandle)
    }

    /// Reads this thread's CPU clock.
    func threadCPUSeconds() -> TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return TimeInterval(now.tv_sec) + TimeInterval(now.tv_nsec) / 1e9
    }
}
