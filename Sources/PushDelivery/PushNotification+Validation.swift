import Foundation

extension PushNotification {
    /// The largest body APNs accepts for an ordinary or silent push (VoIP pushes may be 5 KB,
    /// BuzzKit sends none).
    public static let maximumPayloadSize = 4096
    /// The largest `apns-collapse-id`, in bytes of UTF-8.
    public static let maximumCollapseIdSize = 64

    /// The result this notification gets without being sent, or `nil` when it may be sent.
    ///
    /// Both providers apply the same checks, so a pipeline test on ``InMemoryPushProvider``
    /// sees what production would see:
    /// - a payload over 4096 bytes → `.rejected(status: nil, reason: "PayloadTooLarge")`;
    /// - an empty payload → `.rejected(status: nil, reason: "PayloadEmpty")`;
    /// - a missing topic → `.rejected(status: nil, reason: "MissingTopic")`;
    /// - a collapse id over 64 bytes → `.rejected(status: nil, reason: "BadCollapseId")`;
    /// - a priority other than 1, 5, 10, or a background push not at 5 →
    ///   `.rejected(status: nil, reason: "BadPriority")`;
    /// - a device token that is not an even number of hex digits →
    ///   `.deviceUnregistered(reason: "BadDeviceToken", since: nil)`: it can never be delivered.
    public var localRefusal: PushResult.Outcome? {
        if !Self.isValidDeviceToken(deviceToken) {
            return .deviceUnregistered(reason: "BadDeviceToken", since: nil)
        }
        if payload.count > Self.maximumPayloadSize {
            return .rejected(status: nil, reason: "PayloadTooLarge")
        }
        if payload.isEmpty {
            return .rejected(status: nil, reason: "PayloadEmpty")
        }
        if topic.isEmpty || topic.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return .rejected(status: nil, reason: "MissingTopic")
        }
        if let collapseId, collapseId.utf8.count > Self.maximumCollapseIdSize
            || collapseId.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return .rejected(status: nil, reason: "BadCollapseId")
        }
        if ![1, 5, 10].contains(priority) || (pushType == .background && priority != 5) {
            return .rejected(status: nil, reason: "BadPriority")
        }
        return nil
    }

    /// True for a non-empty, even-length string of hex digits (at most 200 characters).
    static func isValidDeviceToken(_ token: String) -> Bool {
        let bytes = token.utf8
        guard !bytes.isEmpty, bytes.count % 2 == 0, bytes.count <= 200 else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
    }
}
