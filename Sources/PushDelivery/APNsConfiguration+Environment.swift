import Foundation

extension APNsConfiguration {
    /// Reads the configuration from the environment (DESIGN.md, "Configuration"):
    ///
    /// | variable | meaning | default |
    /// | --- | --- | --- |
    /// | `BUZZKIT_APNS_KEY_FILE` | the `.p8` signing key | required |
    /// | `BUZZKIT_APNS_KEY_ID` | its key id (`kid`) | required |
    /// | `BUZZKIT_APNS_TEAM_ID` | the team id (`iss`) | required |
    /// | `BUZZKIT_APNS_URL` | base URL for both environments | Apple's host per device environment |
    /// | `BUZZKIT_APNS_CA_FILE` | extra trusted CA (PEM) | none |
    /// | `BUZZKIT_APNS_MAX_CONNECTIONS` | connections per host | 2 |
    /// | `BUZZKIT_APNS_MAX_ATTEMPTS` | attempts per push | 4 |
    ///
    /// - Throws: ``PushDeliveryError`` `.invalidConfiguration` or `.fileUnreadable`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> APNsConfiguration {
        func required(_ name: String) throws -> String {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                throw PushDeliveryError(.invalidConfiguration, context: "read \(name)", message: "\(name) is not set")
            }
            return value
        }
        func number(_ name: String, default fallback: Int) throws -> Int {
            guard let text = environment[name], !text.isEmpty else { return fallback }
            guard let value = Int(text), value >= 1 else {
                throw PushDeliveryError(.invalidConfiguration, context: "read \(name)",
                                        message: "\(name) must be a positive whole number, got \"\(text)\"")
            }
            return value
        }
        let keyFile = try required("BUZZKIT_APNS_KEY_FILE")
        let pem = try readText(keyFile, context: "read BUZZKIT_APNS_KEY_FILE")
        var configuration = APNsConfiguration(keyID: try required("BUZZKIT_APNS_KEY_ID"),
                                              teamID: try required("BUZZKIT_APNS_TEAM_ID"),
                                              privateKeyPEM: pem)
        if let url = environment["BUZZKIT_APNS_URL"], !url.isEmpty { configuration.baseURL = url }
        if let ca = environment["BUZZKIT_APNS_CA_FILE"], !ca.isEmpty { configuration.extraCAFile = ca }
        configuration.maxConnections = try number("BUZZKIT_APNS_MAX_CONNECTIONS", default: 2)
        configuration.retry.maximumAttempts = try number("BUZZKIT_APNS_MAX_ATTEMPTS", default: 4)
        try configuration.validate()
        return configuration
    }

    /// The extra CA certificates libcurl should trust besides the system's, or `nil`.
    func trustedCertificates() throws -> TrustedCertificates? {
        guard let extraCAFile else { return nil }
        let pem = try Self.readText(extraCAFile, context: "read BUZZKIT_APNS_CA_FILE")
        return try TrustedCertificates(pem: pem, source: extraCAFile)
    }

    private static func readText(_ path: String, context: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PushDeliveryError(.fileUnreadable, context: context, message: "cannot read \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
