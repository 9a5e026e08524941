import BuzzCrypto
import COpenSSL
import CPushShims
import Foundation

/// An EC P-256 key in OpenSSL (`EVP_PKEY`): made fresh for the test PKI and provider keys, or
/// read from PEM; verifies ES256 JWT signatures.
final class ECKey: @unchecked Sendable {
    // EVP_PKEY*: never changed after init; OpenSSL allows concurrent verification with
    // separate digest contexts.
    let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Generates a new P-256 key pair.
    static func generateP256() throws -> ECKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw APNsStandInError.openSSL("EVP_PKEY_CTX_new_from_name EC")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try APNsStandInError.checkOpenSSL(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try APNsStandInError.checkOpenSSL(EVP_PKEY_CTX_set_group_name(context, "P-256"), "set group P-256")
        var key: OpaquePointer?
        try APNsStandInError.checkOpenSSL(EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
        guard let key else { throw APNsStandInError.openSSL("EVP_PKEY_generate") }
        return ECKey(owning: key)
    }

    /// Reads a public key (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo).
    static func publicKey(pem: String) throws -> ECKey {
        try read(pem, what: "public key") { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
    }

    /// Reads a private key (PKCS#8 `-----BEGIN PRIVATE KEY-----`, or the traditional EC form).
    static func privateKey(pem: String) throws -> ECKey {
        try read(pem, what: "private key") { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
    }

    private static func read(_ pem: String, what: String, _ reader: (OpaquePointer) -> OpaquePointer?) throws -> ECKey {
        let bio = try MemoryBIO(text: pem)
        guard let key = reader(bio.pointer) else {
            let detail = OpenSSLErrorQueue.drain() ?? "no PEM found"
            throw APNsStandInError(.invalidKey, context: "read \(what)", message: detail)
        }
        let wrapped = ECKey(owning: key)
        guard EVP_PKEY_get_base_id(key) == bk_evp_pkey_ec(), EVP_PKEY_get_bits(key) == 256 else {
            throw APNsStandInError(.invalidKey, context: "read \(what)", message: "not an EC P-256 key")
        }
        return wrapped
    }

    /// The private key as PKCS#8 PEM, the form of Apple's `.p8` files.
    func privateKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        try APNsStandInError.checkOpenSSL(PEM_write_bio_PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil),
                                          "PEM_write_bio_PrivateKey")
        return bio.text()
    }

    /// The public key as SubjectPublicKeyInfo PEM.
    func publicKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        try APNsStandInError.checkOpenSSL(PEM_write_bio_PUBKEY(bio.pointer, pointer), "PEM_write_bio_PUBKEY")
        return bio.text()
    }

    /// Checks an ES256 JWS signature: the 64-byte `R‖S` over `message` with SHA-256.
    /// Anything malformed is simply `false`.
    func verifyES256(message: Data, signature: Data) -> Bool {
        guard signature.count == 64, let der = Self.derSignature(fromRaw: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            return false
        }
        let result = message.withUnsafeBytes { input in
            der.withUnsafeBufferPointer { sig in
                EVP_DigestVerify(context, sig.baseAddress, sig.count,
                                 input.bindMemory(to: UInt8.self).baseAddress, input.count)
            }
        }
        if result != 1 { _ = OpenSSLErrorQueue.drain() }
        return result == 1
    }

    /// `R‖S` → DER `SEQUENCE { INTEGER r, INTEGER s }`, the form OpenSSL verifies.
    static func derSignature(fromRaw raw: Data) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let bytes = [UInt8](raw)
        guard let r = BN_bin2bn(bytes, 32, nil) else { return nil }
        guard let s = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { bk_openssl_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
