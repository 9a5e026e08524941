import COpenSSL
import Foundation

/// The error type of a module that calls OpenSSL (push delivery, the APNs stand-in). It says
/// how to make one of its errors from a failed call; OpenSSL's one checking function,
/// ``checkOpenSSL(_:_:)``, and the error built from OpenSSL's error queue, ``openSSL(_:libraryCode:)``,
/// come with it, so every module checks and words OpenSSL's failures alike.
public protocol OpenSSLCheckedError: Error {
    /// An error for a failed OpenSSL call: what was being done, OpenSSL's own words, and the
    /// call's return code when there is one.
    static func openSSLFailure(context: String, message: String, libraryCode: Int?) -> Self
}

extension OpenSSLCheckedError {
    /// The checking function for OpenSSL: calls that return 1 (or a positive count) on success
    /// and 0 or a negative number on failure. Pointer results use
    /// `guard let … else { throw openSSL(…) }`.
    ///
    /// - Returns: `result`, for calls whose positive value means something (a length).
    @discardableResult
    public static func checkOpenSSL(_ result: Int32, _ context: @autoclosure () -> String) throws -> Int32 {
        guard result <= 0 else { return result }
        throw openSSL(context(), libraryCode: Int(result))
    }

    /// An error built from OpenSSL's thread-local error queue, which it empties.
    public static func openSSL(_ context: String, libraryCode: Int? = nil) -> Self {
        openSSLFailure(context: context, message: OpenSSLErrorQueue.drain() ?? "OpenSSL call failed", libraryCode: libraryCode)
    }
}
