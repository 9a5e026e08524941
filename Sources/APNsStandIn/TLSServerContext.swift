import BuzzCrypto
import COpenSSL
import CPushShims
import Foundation

/// The stand-in's OpenSSL server context: its certificate and key, TLS 1.2 or later, and ALPN
/// that accepts only `h2` (APNs speaks HTTP/2 and nothing else; a client that does not offer
/// `h2` fails the handshake with a `no_application_protocol` alert).
final class TLSServerContext: @unchecked Sendable {
    // SSL_CTX*: configured once, then only used to make SSL objects (thread-safe in OpenSSL).
    let pointer: OpaquePointer

    init(credentials: StandInCredentials) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw APNsStandInError.openSSL("SSL_CTX_new") }
        pointer = context
        try APNsStandInError.checkOpenSSL(bk_ssl_ctx_require_tls12(context), "require TLS 1.2")
        _ = bk_ssl_ctx_set_nonblocking_modes(context)

        let bio = try MemoryBIO(text: credentials.serverCertificatePEM)
        guard let certificate = PEM_read_bio_X509(bio.pointer, nil, nil, nil) else {
            throw APNsStandInError(.invalidKey, context: "read the server certificate",
                                   message: OpenSSLErrorQueue.drain() ?? "no PEM certificate")
        }
        defer { X509_free(certificate) }
        try APNsStandInError.checkOpenSSL(SSL_CTX_use_certificate(context, certificate), "SSL_CTX_use_certificate")
        let key = try ECKey.privateKey(pem: credentials.serverPrivateKeyPEM)
        try APNsStandInError.checkOpenSSL(SSL_CTX_use_PrivateKey(context, key.pointer), "SSL_CTX_use_PrivateKey")
        try APNsStandInError.checkOpenSSL(SSL_CTX_check_private_key(context), "the key does not match the certificate")
        SSL_CTX_set_alpn_select_cb(context, standInSelectALPN, nil)
    }

    deinit {
        SSL_CTX_free(pointer)
    }
}

/// ALPN: picks `h2` from the client's list (length-prefixed names), or refuses the handshake.
func standInSelectALPN(_ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                       _ outLength: UnsafeMutablePointer<UInt8>?, _ input: UnsafePointer<UInt8>?,
                       _ inputLength: UInt32, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let out, let outLength, let input else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var index = 0
    let count = Int(inputLength)
    while index < count {
        let length = Int(input[index])
        let start = index + 1
        guard length > 0, start + length <= count else { break }
        if length == 2 && input[start] == UInt8(ascii: "h") && input[start + 1] == UInt8(ascii: "2") {
            out.pointee = input + start
            outLength.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        index = start + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}
