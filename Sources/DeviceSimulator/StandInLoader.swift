import APNsStandIn
import Foundation

/// Starts the APNs stand-in from the files `buzzkit-apns setup --dir` wrote, with every
/// accepted push handed to the fleet.
public enum StandInLoader {
    public static func start(directory: String, host: String = "127.0.0.1", port: UInt16, router: PushRouter) throws -> APNsStandIn {
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
        }
        let credentials = StandInCredentials(caCertificatePEM: try read("ca.pem"), serverCertificatePEM: try read("server.pem"),
                                             serverPrivateKeyPEM: try read("server-key.pem"))
        var keys: [String: APNsStandInConfiguration.VerificationKey] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("AuthKey_") && name.hasSuffix(".pub.pem") {
            keys[String(name.dropFirst("AuthKey_".count).dropLast(".pub.pem".count))] = .init(teamID: nil, publicKeyPEM: try read(name))
        }
        guard !keys.isEmpty else { throw SimulatorError("no AuthKey_<kid>.pub.pem in \(directory); run buzzkit-apns setup --dir \(directory)") }
        var configuration = APNsStandInConfiguration(credentials: credentials, keys: keys, port: port)
        configuration.host = host
        configuration.recordPushes = false
        let standIn = try APNsStandIn(configuration: configuration)
        standIn.onPush = { router.deliver($0) }
        router.standIn = standIn
        try standIn.start()
        return standIn
    }
}
