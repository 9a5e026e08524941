import BuzzCrypto
import CCurl
import COpenSSL
import Foundation

// The one checking function per C library: `checkCurl` (libcurl) here, and `checkOpenSSL`
// (OpenSSL) from BuzzCrypto's `OpenSSLCheckedError`, shared with the APNs stand-in.

extension PushDeliveryError {
    /// A libcurl return code: `CURLcode` (easy interface) or `CURLMcode` (multi interface).
    protocol CurlReturnCode {
        /// True for `CURLE_OK` / `CURLM_OK`.
        var isSuccess: Bool { get }
        /// The numeric code.
        var number: Int { get }
        /// libcurl's words for it.
        var text: String { get }
    }
}

extension CURLcode: PushDeliveryError.CurlReturnCode {
    var isSuccess: Bool { self == CURLE_OK }
    var number: Int { Int(rawValue) }
    var text: String { String(cString: curl_easy_strerror(self)) }
}

extension CURLMcode: PushDeliveryError.CurlReturnCode {
    // CURLM_CALL_MULTI_PERFORM (-1) is not an error: it only asks to call again.
    var isSuccess: Bool { self == CURLM_OK || self == CURLM_CALL_MULTI_PERFORM }
    var number: Int { Int(rawValue) }
    var text: String { String(cString: curl_multi_strerror(self)) }
}

extension PushDeliveryError {
    /// The checking function for libcurl: turns any failing return code into an error.
    ///
    /// - Parameters:
    ///   - code: what the call returned.
    ///   - context: what was being done, for the message.
    static func checkCurl<Code: CurlReturnCode>(_ code: Code, _ context: @autoclosure () -> String) throws {
        guard !code.isSuccess else { return }
        throw PushDeliveryError(.curl, context: context(), message: code.text, libraryCode: code.number)
    }

    /// A curl transfer's failure in words, for a `.failed` result (`curl: <text> (<code>)`).
    static func curlFailureReason(_ code: CURLcode, detail: String) -> String {
        let words = detail.isEmpty ? code.text : detail
        return "curl: \(words) (\(code.number))"
    }
}

extension PushDeliveryError: OpenSSLCheckedError {
    public static func openSSLFailure(context: String, message: String, libraryCode: Int?) -> PushDeliveryError {
        PushDeliveryError(.openSSL, context: context, message: message, libraryCode: libraryCode)
    }
}
