import Foundation

/// The device's push subscription, registered with
/// `PUT /v1/subscribers/{id}/devices` as `{"platform": "ios", "token", "topic", "environment",
/// "authorization"?, "timezone"?, "installId"?, "replacesInstallId"?}`.
public struct PushRegistration: Sendable, Hashable, Codable {
    /// The APNs device token in lowercase hex.
    public var token: String
    /// The app's bundle id (the `apns-topic`).
    public var topic: String
    /// Production or sandbox.
    public var environment: Environment
    /// The notification permission last read from the platform (`nil`: not known yet).
    public var authorization: NotificationAuthorization?
    /// The phone's time zone (IANA) when last read (`nil`: not known yet): the server keeps the
    /// subscriber's zone with it, so "07:00 in the subscriber's timezone" follows the person.
    public var timezone: String?
    /// This install of the app (a new install on the same token retires what the old one
    /// acknowledged); `nil`: not known yet.
    public var installId: String?
    /// The install of the app this one replaced on the phone (deleted and installed again,
    /// with a new token): the server retires what that install acknowledged for open runs.
    public var replacesInstallId: String?

    /// A registration from a hex token (normalised to lowercase).
    public init(token: String, topic: String, environment: Environment = .production) {
        self.token = token.lowercased()
        self.topic = topic
        self.environment = environment
    }

    /// A registration from the raw token bytes iOS hands the app.
    public init(deviceToken: Data, topic: String, environment: Environment = .production) {
        self.init(token: Self.hexToken(deviceToken), topic: topic, environment: environment)
    }

    /// The raw token bytes as lowercase hex, two digits a byte: how the API takes a token.
    ///
    /// Without `String(format:)`, which costs a formatter call a byte: a token arrives at every
    /// launch, and in the simulated fleet's all-at-once burst that formatting was 6 % of the
    /// simulator's CPU.
    static func hexToken(_ deviceToken: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(deviceToken.count * 2)
        for byte in deviceToken {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether the token looks like what the API accepts: an even number (≥ 16) of hex digits.
    public var isWellFormed: Bool {
        token.count >= 16 && token.count % 2 == 0 && token.allSatisfy(\.isHexDigit) && !topic.isEmpty
    }

    /// The request body.
    var body: [String: String] {
        var body = ["platform": "ios", "token": token, "topic": topic, "environment": environment.rawValue]
        if let authorization { body["authorization"] = authorization.rawValue }
        if let timezone { body["timezone"] = timezone }
        if let installId { body["installId"] = installId }
        if let replacesInstallId { body["replacesInstallId"] = replacesInstallId }
        return body
    }

    /// The APNs environment a device token belongs to.
    public enum Environment: String, Sendable, Hashable, Codable {
        /// Apple's production gateway (App Store and TestFlight builds).
        case production
        /// Apple's sandbox gateway (development builds).
        case sandbox

        /// `sandbox` when this code is compiled with `DEBUG`, else `production`.
        public static var ofThisBuild: Environment {
            #if DEBUG
            return .sandbox
            #else
            return .production
            #endif
        }
    }
}
