import Foundation

extension APNsConfiguration {
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
