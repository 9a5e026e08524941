import CMicroHTTPD
import Foundation

/// Connections suspended while their request is verified or handled, tracked so a stop can
/// answer them all: libmicrohttpd aborts the process if it is stopped with a connection still
/// suspended, and a resume takes effect only when its thread next looks.
extension HTTPServer {
    /// Suspends `connection` for `state` (from the access handler).
    func suspend(_ connection: OpaquePointer, for state: HTTPRequestState) {
        lock.withLock { suspended[ObjectIdentifier(state)] = (state, ConnectionBox(connection)) }
        MHD_suspend_connection(connection)
    }

    /// Resumes the connection of `state`, once: a second call (a handler finishing after a
    /// stop already answered its request) does nothing.
    func resume(_ state: HTTPRequestState) {
        guard let entry = lock.withLock({ suspended.removeValue(forKey: ObjectIdentifier(state)) }) else { return }
        state.withLock { $0.awaitingCall = true }
        lock.withLock { awaitingCall += 1 }
        MHD_resume_connection(entry.connection.connection)
    }

    /// libmicrohttpd called back for a resumed connection (or finished with it).
    func tookBack(_ state: HTTPRequestState) {
        let was = state.withLock { state -> Bool in
            defer { state.awaitingCall = false }
            return state.awaitingCall
        }
        if was { lock.withLock { awaitingCall -= 1 } }
    }

    /// At a stop, after the grace: answers every request still suspended with
    /// `500 interrupted` and waits (at most a second) until libmicrohttpd has taken each resumed
    /// connection back. Not `503`: its handler is still running and may yet commit, and a
    /// client takes a `503` as "nothing was done" (a phone then withdraws what it
    /// acknowledged).
    func answerSuspended() {
        let left = lock.withLock { Array(suspended.values) }
        for (state, _) in left {
            state.withLock {
                if $0.response == nil {
                    $0.response = HTTPError(status: 500, code: "interrupted",
                                            message: "the server stopped while handling the request, which may or may not have taken effect; retry on another instance").response
                }
            }
            resume(state)
        }
        let settle = Date().addingTimeInterval(1)
        while lock.withLock({ awaitingCall }) > 0 && Date() < settle { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// True once ``stop(grace:)`` began: new requests on open connections are refused.
    var isStopping: Bool { lock.withLock { stopping } }
}
