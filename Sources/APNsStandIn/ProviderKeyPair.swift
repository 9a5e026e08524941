import Foundation

/// An APNs auth key as Apple hands it out, made locally for tests and the stand-in: the
/// private half is the provider's `.p8` file (PKCS#8 PEM, EC P-256), the public half is what
/// the stand-in verifies JWT signatures with, and `keyID` is the JWT's `kid`.
public struct ProviderKeyPair: Sendable, Equatable {
    /// The key id (`kid`), 10 characters at Apple.
    public var keyID: String
    /// The team id (`iss`) the key belongs to.
    public var teamID: String
    /// The `.p8` contents (`-----BEGIN PRIVATE KEY-----`).
    public var privateKeyPEM: String
    /// The public key (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String

    /// Generates a new P-256 key pair.
    ///
    /// - Parameters:
    ///   - keyID: the `kid`; Apple's are 10 uppercase letters and digits.
    ///   - teamID: the `iss`; Apple's are 10 uppercase letters and digits.
    public static func generate(keyID: String = "STANDIN001", teamID: String = "BUZZKIT001") throws -> ProviderKeyPair {
        let key = try ECKey.generateP256()
        return ProviderKeyPair(keyID: keyID, teamID: teamID, privateKeyPEM: try key.privateKeyPEM(),
                               publicKeyPEM: try key.publicKeyPEM())
    }

    /// The stand-in's view of this key: `kid` → team and public key.
    public var verificationKey: APNsStandInConfiguration.VerificationKey {
        APNsStandInConfiguration.VerificationKey(teamID: teamID, publicKeyPEM: publicKeyPEM)
    }

    /// Writes `AuthKey_<kid>.p8` (mode 0600) and `AuthKey_<kid>.pub.pem` into `directory`.
    ///
    /// - Returns: the two paths, private key first.
    @discardableResult
    public func write(to directory: String) throws -> (privateKey: String, publicKey: String) {
        let base = (directory as NSString).appendingPathComponent("AuthKey_\(keyID)")
        let privatePath = base + ".p8"
        let publicPath = base + ".pub.pem"
        try StandInCredentials.writeFile(privatePath, privateKeyPEM, secret: true)
        try StandInCredentials.writeFile(publicPath, publicKeyPEM, secret: false)
        return (privatePath, publicPath)
    }
}
