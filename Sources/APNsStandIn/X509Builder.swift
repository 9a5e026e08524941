import BuzzCrypto
import COpenSSL
import Foundation

/// Builds one X.509 v3 certificate with OpenSSL (for the stand-in's test PKI).
final class X509Builder {
    let certificate: OpaquePointer

    /// A certificate for `subjectKey` named `CN=<commonName>`, valid from an hour ago for
    /// `days` days, self-issued until ``setIssuer(_:)``.
    init(commonName: String, subjectKey: ECKey, days: Int) throws {
        guard let certificate = X509_new() else { throw APNsStandInError.openSSL("X509_new") }
        self.certificate = certificate
        try APNsStandInError.checkOpenSSL(X509_set_version(certificate, 2), "X509_set_version")
        try APNsStandInError.checkOpenSSL(ASN1_INTEGER_set_int64(X509_get_serialNumber(certificate),
                                                                 Int64.random(in: 1...Int64.max)), "serial number")
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400) != nil else {
            throw APNsStandInError.openSSL("X509_gmtime_adj")
        }
        try APNsStandInError.checkOpenSSL(X509_set_pubkey(certificate, subjectKey.pointer), "X509_set_pubkey")
        let name = X509_get_subject_name(certificate)
        try APNsStandInError.checkOpenSSL(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "BuzzKit", -1, -1, 0),
                                          "subject O")
        try APNsStandInError.checkOpenSSL(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0),
                                          "subject CN")
        try APNsStandInError.checkOpenSSL(X509_set_issuer_name(certificate, name), "X509_set_issuer_name")
    }

    deinit {
        X509_free(certificate)
    }

    /// Makes `issuer`'s subject this certificate's issuer.
    func setIssuer(_ issuer: X509Builder) throws {
        try APNsStandInError.checkOpenSSL(X509_set_issuer_name(certificate, X509_get_subject_name(issuer.certificate)),
                                          "X509_set_issuer_name")
    }

    /// Adds v3 extensions written as in `openssl.cnf` (`critical,CA:TRUE`, `DNS:localhost`, …).
    func addExtensions(_ extensions: [(Int32, String)], issuer: X509Builder?) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate ?? certificate, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw APNsStandInError.openSSL("X509V3_EXT_conf_nid \(nid)=\(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            try APNsStandInError.checkOpenSSL(X509_add_ext(certificate, ext, -1), "X509_add_ext")
        }
    }

    /// Signs with SHA-256.
    func sign(with key: ECKey) throws {
        try APNsStandInError.checkOpenSSL(X509_sign(certificate, key.pointer, EVP_sha256()), "X509_sign")
    }

    /// The certificate as PEM.
    func pem() throws -> String {
        let bio = try MemoryBIO()
        try APNsStandInError.checkOpenSSL(PEM_write_bio_X509(bio.pointer, certificate), "PEM_write_bio_X509")
        return bio.text()
    }
}
