import Foundation
import HTTPServer

/// The raw ceiling of the HTTP stack: the same libmicrohttpd wrapper answering "ok".
enum HelloServer {
    static func serve(port: Int) throws -> Never {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let server = HTTPServer(.init(host: "127.0.0.1", port: port)) { _ in .text("ok") }
        try server.start()
        var received: Int32 = 0
        sigwait(&blocked, &received)
        server.stop(grace: 1)
        exit(0)
    }
}
