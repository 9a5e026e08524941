import APNsStandIn
import Foundation

/// A fresh APNs stand-in in this process (new CA, server certificate and provider key in
/// `directory`), with every accepted push routed to the fleet's phones, and the environment
/// that points BuzzKit's server processes at it and at their own schema and queues.
public struct StandInServer {
    public let standIn: APNsStandIn
    public let router: PushRouter
    let caFile: String
    let key: ProviderKeyPair
    let keyFile: String

    public init(directory: String) throws {
        let files = try StandInCredentials.generate().write(to: directory)
        key = try ProviderKeyPair.generate()
        keyFile = try key.write(to: directory).privateKey
        caFile = files.caCertificate
        router = PushRouter()
        standIn = try StandInLoader.start(directory: directory, port: 0, router: router)
    }

    /// `base` plus the services' URLs, the schema and queue prefix `tag`, the HTTP port and
    /// the APNs settings for this stand-in.
    public func serverEnvironment(base: [String: String], databaseURL: String, amqpURL: String, tag: String, httpPort: Int) -> [String: String] {
        var environment = base
        environment["BUZZKIT_DATABASE_URL"] = databaseURL
        environment["BUZZKIT_AMQP_URL"] = amqpURL
        environment["BUZZKIT_DB_SCHEMA"] = tag
        environment["BUZZKIT_QUEUE_PREFIX"] = tag + "."
        environment["BUZZKIT_HTTP_PORT"] = "\(httpPort)"
        environment["BUZZKIT_APNS_URL"] = standIn.baseURL
        environment["BUZZKIT_APNS_CA_FILE"] = caFile
        environment["BUZZKIT_APNS_KEY_FILE"] = keyFile
        environment["BUZZKIT_APNS_KEY_ID"] = key.keyID
        environment["BUZZKIT_APNS_TEAM_ID"] = key.teamID
        return environment
    }
}
