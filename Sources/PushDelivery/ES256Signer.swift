import BuzzCrypto
import COpenSSL
import CPushShims
import Foundation

/// An ES256 signing key (ECDSA over P-256 with SHA-256): the team's `.p8` key from Apple, a
/// PKCS#8 PEM EC private key.
///
/// OpenSSL produces DER-encoded ECDSA signatures (`SEQUENCE { r INTEGER, s INTEGER }`); JWS
/// (RFC 7518 §3.4) wants the raw 64-byte `R‖S`, each half left-padded to 32 bytes, so
/// ``sign(_:)`` converts.
final class ES256Signer: @unchecked Sendable {
    // EVP_PKEY*: read-only after init; OpenSSL allows concurrent signing with separate contexts.
    private let key: OpaquePointer

    /// Loads the key from PEM text (`-----BEGIN PRIVATE KEY-----`, as Apple's `.p8` files are).
    ///
    /// - Throws: ``PushDeliveryError`` `.invalidKey` when it is not a P-256 EC private key.
    init(privateKeyPEM: String) throws {
        guard let bio = BIO_new(BIO_s_mem()) else { throw PushDeliveryError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        let bytes = Array(privateKeyPEM.utf8)
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        try PushDeliveryError.checkOpenSSL(bytes.isEmpty ? 1 : written, "BIO_write of the signing key")
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            let detail = PushDeliveryError.openSSL("PEM_read_bio_PrivateKey").message
            throw PushDeliveryError(.invalidKey, context: "read the APNs signing key",
                                    message: "not a PEM private key (\(detail))")
        }
        guard EVP_PKEY_get_base_id(key) == bk_evp_pkey_ec(), EVP_PKEY_get_bits(key) == 256 else {
            EVP_PKEY_free(key)
            throw PushDeliveryError(.invalidKey, context: "read the APNs signing key",
                                    message: "APNs keys are EC P-256 (ES256); this key is another kind")
        }
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Signs `message` with SHA-256 and ECDSA, returning the 64-byte `R‖S` form JWTs use.
    func sign(_ message: Data) throws -> Data {
        guard let context = EVP_MD_CTX_new() else { throw PushDeliveryError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try PushDeliveryError.checkOpenSSL(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key),
                                           "EVP_DigestSignInit")
        var derLength = 0
        let der: [UInt8] = try message.withUnsafeBytes { input in
            let bytes = input.bindMemory(to: UInt8.self).baseAddress
            try PushDeliveryError.checkOpenSSL(EVP_DigestSign(context, nil, &derLength, bytes, input.count),
                                               "EVP_DigestSign (length)")
            var der = [UInt8](repeating: 0, count: derLength)
            try PushDeliveryError.checkOpenSSL(EVP_DigestSign(context, &der, &derLength, bytes, input.count),
                                               "EVP_DigestSign")
            return Array(der.prefix(derLength))
        }
        return try Self.rawSignature(fromDER: der)
    }

    /// Converts a DER ECDSA signature to `R‖S` (32 + 32 bytes, big-endian, zero-padded).
    static func rawSignature(fromDER der: [UInt8]) throws -> Data {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else { throw PushDeliveryError.openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out -> (Int32, Int32) in
            (BN_bn2binpad(r, out.baseAddress, 32), BN_bn2binpad(s, out.baseAddress! + 32, 32))
        }
        guard written.0 == 32, written.1 == 32 else {
            throw PushDeliveryError(.openSSL, context: "BN_bn2binpad", message: "ECDSA half longer than 32 bytes")
        }
        return Data(raw)
    }
}
