import Foundation

/// The one error type of `APNsStandIn`: a code, what was being done, and a message.
///
/// The stand-in throws only while it is set up (keys, certificates, the listening socket).
/// Once running, bad input from a client never throws or crashes: it gets an APNs error
/// answer, a stream reset or a closed connection. Return codes of the C libraries become this
/// error through one checking function per library: `checkOpenSSL`, `checkNGHTTP2` and
/// `checkSystem` (libc).
public struct APNsStandInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Code: String, Sendable, Equatable {
        /// A setting or command-line flag is missing or malformed.
        case invalidConfiguration
        /// A key or certificate is unreadable or of the wrong kind.
        case invalidKey
        /// A file could not be read or written.
        case fileAccess
        /// A socket call failed (`libraryCode` is `errno`).
        case system
        /// OpenSSL reported a failure (`message` holds its error queue).
        case openSSL
        /// libnghttp2 reported a failure (`libraryCode` is its error code).
        case nghttp2
    }

    /// What kind of problem it is.
    public var code: Code
    /// What was being done (for example `bind 127.0.0.1:2197`).
    public var context: String
    /// What went wrong, in words.
    public var message: String
    /// The C library's own return code or `errno`, when there is one.
    public var libraryCode: Int?

    /// Creates an error.
    public init(_ code: Code, context: String, message: String, libraryCode: Int? = nil) {
        self.code = code
        self.context = context
        self.message = message
        self.libraryCode = libraryCode
    }

    /// `APNsStandInError.<code> during <context> [<library code>]: <message>`.
    public var description: String {
        var text = "APNsStandInError.\(code.rawValue) during \(context)"
        if let libraryCode { text += " [\(libraryCode)]" }
        return text + ": \(message)"
    }
}
