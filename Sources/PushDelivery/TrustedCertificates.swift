import BuzzCrypto
import CCurl
import COpenSSL
import Foundation

/// Extra CA certificates (``APNsConfiguration/extraCAFile``) added to libcurl's TLS trust for
/// every new connection, on top of the system's CAs.
///
/// They are parsed once and added through `CURLOPT_SSL_CTX_FUNCTION` to each connection's
/// OpenSSL store. (Handing curl the bundle as `CURLOPT_CAINFO_BLOB` would work too, but curl
/// copies and compares the blob for every request when it looks for a connection to reuse:
/// with the system bundle included that was about a fifth of the provider's CPU.)
final class TrustedCertificates: @unchecked Sendable {
    // X509*: read-only after init; adding to a store only takes references.
    private let certificates: [OpaquePointer]

    /// Parses every `-----BEGIN CERTIFICATE-----` block of `pem`.
    ///
    /// - Throws: ``PushDeliveryError`` `.invalidConfiguration` when there is none.
    init(pem: String, source: String) throws {
        guard let bio = BIO_new(BIO_s_mem()) else { throw PushDeliveryError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        let bytes = Array(pem.utf8)
        _ = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        var parsed: [OpaquePointer] = []
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            parsed.append(certificate)
        }
        ERR_clear_error()  // the read that ends the loop leaves "no start line" behind
        guard !parsed.isEmpty else {
            throw PushDeliveryError(.invalidConfiguration, context: "read BUZZKIT_APNS_CA_FILE",
                                    message: "\(source) holds no PEM certificate")
        }
        certificates = parsed
    }

    deinit {
        certificates.forEach { X509_free($0) }
    }

    /// How many certificates were read.
    var count: Int { certificates.count }

    /// Adds the certificates to an OpenSSL context's trust store (called by libcurl for each
    /// new connection, after it loaded the system CAs).
    func install(into context: OpaquePointer) -> Bool {
        guard let store = SSL_CTX_get_cert_store(context) else { return false }
        for certificate in certificates where X509_STORE_add_cert(store, certificate) != 1 {
            // Already present is fine; anything else is not.
            let reason = ERR_GET_REASON_compat(ERR_peek_last_error())
            ERR_clear_error()
            if reason != X509_R_CERT_ALREADY_IN_HASH_TABLE { return false }
        }
        return true
    }
}

/// `CURLOPT_SSL_CTX_FUNCTION`: the user pointer is the unretained ``TrustedCertificates``
/// that the multi loop's settings keep alive.
func curlInstallTrustedCertificates(_ curl: UnsafeMutableRawPointer?, _ sslContext: UnsafeMutableRawPointer?,
                                    _ user: UnsafeMutableRawPointer?) -> CURLcode {
    guard let sslContext, let user else { return CURLE_OK }
    let trusted = Unmanaged<TrustedCertificates>.fromOpaque(user).takeUnretainedValue()
    return trusted.install(into: OpaquePointer(sslContext)) ? CURLE_OK : CURLE_SSL_CACERT_BADFILE
}

/// `ERR_GET_REASON` is a macro (OpenSSL 3: the low 23 bits).
private func ERR_GET_REASON_compat(_ code: UInt) -> Int32 {
    Int32(code & 0x7FFFFF)
}
