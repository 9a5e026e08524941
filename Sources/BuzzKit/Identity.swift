import Foundation

/// Who the device acts for, persisted so a relaunch (including a cold launch by a silent
/// push, before the app had a chance to sign in again) still knows the subscriber and can
/// send what is queued with the last subscriber token.
struct Identity: Sendable, Hashable, Codable {
    /// The signed-in subscriber.
    var subscriberId: String
    /// The last subscriber token the app's provider gave (a short-lived bearer credential
    /// for this subscriber only; it is dropped at logout).
    var lastToken: String?

    /// Checks a subscriber id as the API would (1–200 UTF-8 bytes, no NUL).
    static func validate(subscriberId: String, context: String) throws {
        guard !subscriberId.isEmpty, subscriberId.utf8.count <= 200, !subscriberId.contains("\u{0}") else {
            throw BuzzKitError(.invalidConfiguration, context: context,
                               message: "a subscriber id has 1–200 bytes of UTF-8 and no NUL")
        }
    }
}
