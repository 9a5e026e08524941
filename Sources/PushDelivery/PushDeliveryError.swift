import Foundation

/// The one error type of `PushDelivery`: a code, what was being done, and a message a person
/// can act on.
///
/// Sends never throw (their problems become ``PushResult/Outcome/failed(status:reason:)``);
/// this error comes from setting a provider up: a bad key or configuration, or a C library
/// refusing to start. Return codes of the C libraries become this error through one checking
/// function per library: `checkCurl` (libcurl) and `checkOpenSSL` (OpenSSL).
public struct PushDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Code: String, Sendable, Equatable {
        /// A setting is missing or malformed (environment variable, URL, key id, team id).
        case invalidConfiguration
        /// The `.p8` signing key cannot be read or is not a P-256 EC private key.
        case invalidKey
        /// A file could not be read.
        case fileUnreadable
        /// libcurl reported a failure (`libraryCode` is the CURLcode or CURLMcode).
        case curl
        /// OpenSSL reported a failure (`message` holds its error queue).
        case openSSL
        /// The provider was closed.
        case closed
    }

    /// What kind of problem it is.
    public var code: Code
    /// What was being done (for example `curl_multi_init` or `load BUZZKIT_APNS_KEY_FILE`).
    public var context: String
    /// What went wrong, in words.
    public var message: String
    /// The C library's own return code, when there is one.
    public var libraryCode: Int?

    /// Creates an error.
    public init(_ code: Code, context: String, message: String, libraryCode: Int? = nil) {
        self.code = code
        self.context = context
        self.message = message
        self.libraryCode = libraryCode
    }

    /// `PushDeliveryError.<code> during <context> [<library code>]: <message>`.
    public var description: String {
        var text = "PushDeliveryError.\(code.rawValue) during \(context)"
        if let libraryCode { text += " [\(libraryCode)]" }
        return text + ": \(message)"
    }
}
