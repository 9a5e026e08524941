import COpenSSL
import CPushShims
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A misbehaving client for the stand-in's robustness test: raw TCP garbage, silent
/// connections, TLS without `h2`, TLS with garbage HTTP/2 frames.
enum GarbageClient {
    /// A connected TCP socket to 127.0.0.1:`port`.
    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends bytes over plain TCP and reads until the server closes.
    static func sendRaw(_ bytes: Data, port: UInt16) throws {
        let fd = try connect(port: port)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    /// Does a TLS handshake (offering `alpn` if given), sends `payload`, reads until the end.
    /// Returns whether the server closed the connection (rather than the 5 s read timeout
    /// expiring with the connection still open).
    static func tls(port: UInt16, alpn: String?, payload: Data) throws -> Bool {
        let fd = try connect(port: port)
        defer { close(fd) }
        guard let context = SSL_CTX_new(TLS_client_method()) else { return false }
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        if let alpn {
            let wire = [UInt8(alpn.utf8.count)] + Array(alpn.utf8)
            _ = SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count))
        }
        guard let ssl = SSL_new(context) else { return false }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        _ = bk_ssl_set_host_name(ssl, "localhost")
        defer { ERR_clear_error() }
        // With TLS 1.3 the client finishes first, so a refusal may only show as a close later.
        guard SSL_connect(ssl) == 1 else { return true }
        if !payload.isEmpty {
            _ = payload.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 { continue }
            let error = SSL_get_error(ssl, count)
            let timedOut = error == SSL_ERROR_WANT_READ || (error == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK))
            return !timedOut
        }
    }
}
