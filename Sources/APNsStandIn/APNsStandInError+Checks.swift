import BuzzCrypto
import CNGHTTP2
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension APNsStandInError: OpenSSLCheckedError {
    public static func openSSLFailure(context: String, message: String, libraryCode: Int?) -> APNsStandInError {
        APNsStandInError(.openSSL, context: context, message: message, libraryCode: libraryCode)
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
