import COpenSSL
import Foundation

/// The stand-in's TLS identity, generated in code with OpenSSL: a throwaway test CA and a
/// server certificate it signed for `localhost` and `127.0.0.1` (EC P-256, SHA-256).
///
/// Hand ``caCertificatePEM`` (written as `ca.pem`) to the provider as its extra trusted CA
/// (`APNsConfiguration.extraCAFile` / `BUZZKIT_APNS_CA_FILE`); the stand-in serves
/// ``serverCertificatePEM`` with ``serverPrivateKeyPEM``. `buzzkit-apns setup --dir DIR`
/// does the same from the command line.
public struct StandInCredentials: Sendable, Equatable {
    /// The test CA's certificate (PEM): trust this.
    public var caCertificatePEM: String
    /// The server certificate (PEM), signed by the CA, valid for the requested hosts.
    public var serverCertificatePEM: String
    /// The server's private key (PKCS#8 PEM).
    public var serverPrivateKeyPEM: String

    /// Creates credentials from existing PEM text (for example files made elsewhere).
    public init(caCertificatePEM: String, serverCertificatePEM: String, serverPrivateKeyPEM: String) {
        self.caCertificatePEM = caCertificatePEM
        self.serverCertificatePEM = serverCertificatePEM
        self.serverPrivateKeyPEM = serverPrivateKeyPEM
    }

    /// Generates a CA and a server certificate.
    ///
    /// - Parameters:
    ///   - hosts: DNS names and IP addresses the server certificate is valid for.
    ///   - days: validity of both certificates (from one hour ago).
    public static func generate(hosts: [String] = ["localhost", "127.0.0.1"], days: Int = 825) throws -> StandInCredentials {
        guard !hosts.isEmpty, hosts.allSatisfy({ !$0.isEmpty && !$0.contains(",") }) else {
            throw APNsStandInError(.invalidConfiguration, context: "generate the stand-in certificate",
                                   message: "hosts must be non-empty names or addresses")
        }
        let caKey = try ECKey.generateP256()
        let ca = try X509Builder(commonName: "BuzzKit APNs stand-in test CA", subjectKey: caKey, days: days)
        try ca.addExtensions([(NID_basic_constraints, "critical,CA:TRUE"),
                              (NID_key_usage, "critical,keyCertSign,cRLSign"),
                              (NID_subject_key_identifier, "hash")], issuer: nil)
        try ca.sign(with: caKey)

        let serverKey = try ECKey.generateP256()
        let server = try X509Builder(commonName: hosts[0], subjectKey: serverKey, days: days)
        try server.setIssuer(ca)
        let names = hosts.map { isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        try server.addExtensions([(NID_basic_constraints, "critical,CA:FALSE"),
                                  (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
                                  (NID_ext_key_usage, "serverAuth"),
                                  (NID_subject_alt_name, names),
                                  (NID_subject_key_identifier, "hash"),
                                  (NID_authority_key_identifier, "keyid:always")], issuer: ca)
        try server.sign(with: caKey)
        return StandInCredentials(caCertificatePEM: try ca.pem(), serverCertificatePEM: try server.pem(),
                                  serverPrivateKeyPEM: try serverKey.privateKeyPEM())
    }

    /// The files ``write(to:)`` made.
    public struct Files: Sendable, Equatable {
        /// `ca.pem`: the CA certificate to trust.
        public var caCertificate: String
        /// `server.pem`: the server certificate.
        public var serverCertificate: String
        /// `server-key.pem`: the server's private key (mode 0600).
        public var serverPrivateKey: String
    }

    /// Writes `ca.pem`, `server.pem` and `server-key.pem` into `directory` (created if needed).
    @discardableResult
    public func write(to directory: String) throws -> Files {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw APNsStandInError(.fileAccess, context: "create \(directory)", message: "\(error)")
        }
        let files = Files(caCertificate: (directory as NSString).appendingPathComponent("ca.pem"),
                          serverCertificate: (directory as NSString).appendingPathComponent("server.pem"),
                          serverPrivateKey: (directory as NSString).appendingPathComponent("server-key.pem"))
        try Self.writeFile(files.caCertificate, caCertificatePEM, secret: false)
        try Self.writeFile(files.serverCertificate, serverCertificatePEM, secret: false)
        try Self.writeFile(files.serverPrivateKey, serverPrivateKeyPEM, secret: true)
        return files
    }

    /// Writes text to a file, private keys readable by the owner only.
    static func writeFile(_ path: String, _ text: String, secret: Bool) throws {
        let attributes: [FileAttributeKey: Any] = [.posixPermissions: secret ? 0o600 : 0o644]
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: attributes) else {
            throw APNsStandInError(.fileAccess, context: "write \(path)", message: "cannot create the file")
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
