import Foundation

/// Sends one HTTP request and returns the response: the SDK's only way to the network.
///
/// A response with any status is a success of the transport; only failures to get a
/// response throw. Throw ``BuzzKitError`` with ``BuzzKitError/Code/networkUnavailable``
/// when the request certainly did not leave the device, and
/// ``BuzzKitError/Code/networkFailure`` when it may have reached the server.
public protocol HTTPTransport: Sendable {
    /// Sends `request`.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}
