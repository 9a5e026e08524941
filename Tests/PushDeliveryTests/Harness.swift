import APNsStandIn
import BuzzKitWire
import Foundation
@testable import PushDelivery

/// A running stand-in and a provider pointed at it, over TLS on 127.0.0.1 (a free port).
final class Harness: Sendable {
    let standIn: APNsStandIn
    let provider: APNsProvider

    init(failures: APNsFailurePlan = APNsFailurePlan(),
         providerClock: (any Clock)? = nil,
         standInClock: (@Sendable () -> Date)? = nil,
         providerKey: ProviderKeyPair = Fixtures.key,
         trustCA: Bool = true,
         configure: (inout APNsConfiguration) -> Void = { _ in }) throws {
        var standInConfiguration = APNsStandInConfiguration(credentials: Fixtures.credentials,
                                                            providerKeys: [Fixtures.key])
        standInConfiguration.failures = failures
        if let standInClock { standInConfiguration.clock = standInClock }
        standIn = try APNsStandIn(configuration: standInConfiguration)
        try standIn.start()
        var configuration = APNsConfiguration(keyID: providerKey.keyID, teamID: providerKey.teamID,
                                              privateKeyPEM: providerKey.privateKeyPEM,
                                              baseURL: standIn.baseURL,
                                              extraCAFile: trustCA ? Fixtures.caFile : nil)
        configuration.retry = APNsConfiguration.RetryPolicy(maximumAttempts: 4, initialDelay: 0.01, maximumDelay: 0.05)
        configuration.requestTimeout = 10
        if let providerClock { configuration.clock = providerClock }
        configure(&configuration)
        provider = try APNsProvider(configuration: configuration)
    }

    deinit {
        provider.close()
        standIn.stop()
    }

    /// The recorded `authorization` header values, in order.
    var authorizations: [String] {
        standIn.pushes.compactMap { $0.headers["authorization"] }
    }
}
