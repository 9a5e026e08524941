import BuzzKitOnAppleModel
import Foundation

/// The SDK's network in a simulated app: the phone's connectivity and the app's state.
///
/// - Offline, or the app frozen: the request fails at once and certainly did not leave.
/// - A slow network (``NetworkSwitch/uplinkDelay``): the request reaches the server that much later.
/// - A request in flight when the app is suspended reaches the server, but its answer is
///   only seen when the app runs again, as a failure that may have arrived (iOS freezes the
///   process; the connection is gone when it thaws).
final class AppTransport: HTTPTransport, @unchecked Sendable {
    let base: any HTTPTransport
    let network: NetworkSwitch
    let gate: AppGate

    init(base: any HTTPTransport, network: NetworkSwitch, gate: AppGate) {
        self.base = base
        self.network = network
        self.gate = gate
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let context = "\(request.method) \(request.url.path)"
        guard network.isOnline else { throw BuzzKitError(.networkUnavailable, context: context, message: "the phone is offline") }
        guard gate.isRunning else { throw BuzzKitError(.networkUnavailable, context: context, message: "the app is suspended") }
        let generation = gate.generation
        let response: HTTPTransportResponse
        do {
            gate.requestBegan()
            defer { gate.requestEnded() }
            let uplink = network.uplinkDelay
            if uplink > 0 { try? await Task.sleep(nanoseconds: UInt64(uplink * 1e9)) }
            response = try await base.send(request)
        }
        if gate.generation != generation {
            await gate.whenRunning()
            throw BuzzKitError(.networkFailure, context: context, message: "the app was suspended while the request was in flight")
        }
        return response
    }
}
