import COpenSSL
import Foundation

/// OpenSSL's thread-local error queue, read for the error types of the modules that call
/// OpenSSL (push delivery, the APNs stand-in): one reader, so every module words it alike.
public enum OpenSSLErrorQueue {
    /// The queued error strings joined with "; ", or nil when the queue is empty; empties it.
    public static func drain() -> String? {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}
