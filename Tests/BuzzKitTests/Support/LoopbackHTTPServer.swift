#if canImport(Glibc)
import Foundation
import Glibc
@_spi(BuzzKitTesting) @testable import BuzzKit
import BuzzKitTesting

/// A one-request HTTP/1.1 server on 127.0.0.1 for testing the real transport: it accepts one
/// connection on a background thread, records the raw request and answers with a fixed
/// response.
final class LoopbackHTTPServer: Sendable {
    /// The port it listens on.
    let port: UInt16
    private let listener: Int32
    private let received = Locked<String?>(nil)

    /// Listens on an ephemeral port and answers the first request with `response` (raw).
    init(response: String) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BuzzKitError(.networkUnavailable, context: "socket", message: "no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 1) == 0
                && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else {
            close(listener)
            throw BuzzKitError(.networkUnavailable, context: "bind", message: "could not listen")
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let received = self.received
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var request = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                request.append(contentsOf: buffer[0..<count])
                if let text = String(data: request, encoding: .utf8), let split = text.range(of: "\r\n\r\n") {
                    let head = text[..<split.lowerBound].lowercased()
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text[split.upperBound...].utf8.count >= length { break }
                }
            }
            received.withLock { $0 = String(decoding: request, as: UTF8.self) }
            _ = response.withCString { write(connection, $0, strlen($0)) }
            close(connection)
        }
    }

    deinit {
        close(listener)
    }

    /// The raw request received so far.
    var request: String? { received.current }
}
#endif
