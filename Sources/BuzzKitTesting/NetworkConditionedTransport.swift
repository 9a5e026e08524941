@_spi(BuzzKitTesting) import BuzzKit
import Foundation

/// Wraps a transport with a network switch, for simulating a phone going offline.
///
/// While offline every request fails at once with ``BuzzKitError/Code/networkUnavailable``
/// and never reaches the wrapped transport. Going back online does not by itself flush the
/// SDK's queue: tell the client with ``BuzzKitClient/networkDidBecomeAvailable()``, as an
/// app's reachability observer would.
public final class NetworkConditionedTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let online: Locked<Bool>

    /// Wraps `base`, starting online or offline.
    public init(wrapping base: any HTTPTransport, online: Bool = true) {
        self.base = base
        self.online = Locked(online)
    }

    /// Whether requests currently go through.
    public var isOnline: Bool { online.current }

    /// Switches the network on or off.
    public func setOnline(_ isOnline: Bool) {
        online.withLock { $0 = isOnline }
    }

    /// Sends through the wrapped transport when online; fails at once when offline.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        guard online.current else {
            throw BuzzKitError(.networkUnavailable, context: "\(request.method) \(request.url.path)",
                               message: "the device is offline")
        }
        return try await base.send(request)
    }
}
