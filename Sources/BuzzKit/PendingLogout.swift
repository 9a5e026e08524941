import Foundation

/// A logout whose `DELETE /v1/subscribers/{id}/devices/{token}` has not reached the server
/// yet; retried at every wake until it does, it is refused, or its token expired.
struct PendingLogout: Sendable, Hashable, Codable {
    var subscriberId: String
    var deviceToken: String
    var subscriberToken: String
}
