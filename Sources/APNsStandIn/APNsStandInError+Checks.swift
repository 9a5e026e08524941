import BuzzCrypto
import CNGHTTP2
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension APNsStandInError {
    /// The checking function for OpenSSL: calls that return 1 (or a positive value) on
    /// success. Pointer results use `guard let … else { throw openSSL(…) }`.
    @discardableResult
    static func checkOpenSSL(_ result: Int32, _ context: @autoclosure () -> String) throws -> Int32 {
        guard result <= 0 else { return result }
        throw openSSL(context(), libraryCode: Int(result))
    }

    /// An error built from OpenSSL's thread-local error queue, which it empties.
    static func openSSL(_ context: String, libraryCode: Int? = nil) -> APNsStandInError {
        APNsStandInError(.openSSL, context: context, message: OpenSSLErrorQueue.drain() ?? "OpenSSL call failed",
                         libraryCode: libraryCode)
    }

    /// The checking function for libnghttp2: negative return codes are errors.
    @discardableResult
    static func checkNGHTTP2(_ result: Int, _ context: @autoclosure () -> String) throws -> Int {
        guard result < 0 else { return result }
        let message = String(cString: nghttp2_strerror(Int32(clamping: result)))
        throw APNsStandInError(.nghttp2, context: context(), message: message, libraryCode: result)
    }

    /// The checking function for libc socket calls: -1 is an error described by `errno`.
    @discardableResult
    static func checkSystem(_ result: Int32, _ context: @autoclosure () -> String) throws -> Int32 {
        guard result == -1 else { return result }
        let number = errno
        throw APNsStandInError(.system, context: context(), message: String(cString: strerror(number)),
                               libraryCode: Int(number))
    }
}
