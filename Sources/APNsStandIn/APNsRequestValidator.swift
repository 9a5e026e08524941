import Foundation

/// Apple's checks on one request to `POST /3/device/<token>`, in this order:
///
/// | check | refusal |
/// | --- | --- |
/// | method is `POST` | 405 `MethodNotAllowed` |
/// | path is `/3/device/<token>` | 404 `BadPath`; 400 `MissingDeviceToken` when empty |
/// | token is 64 hex digits | 400 `BadDeviceToken` |
/// | no repeated `authorization` / `apns-*` header | 400 `DuplicateHeaders` |
/// | `authorization: bearer <jwt>` present | 403 `MissingProviderToken` |
/// | JWT: ES256, known `kid`, team `iss`, signature verifies | 403 `InvalidProviderToken` |
/// | JWT `iat` at most an hour old | 403 `ExpiredProviderToken` |
/// | `apns-topic` present (and allowed, when a list is set) | 400 `MissingTopic` / `TopicDisallowed` |
/// | `apns-push-type` one of Apple's types | 400 `InvalidPushType` |
/// | `apns-priority` 1, 5 or 10 (absent means 10); `background` only 5 | 400 `BadPriority` |
/// | `apns-expiration` whole epoch seconds | 400 `BadExpirationDate` |
/// | `apns-collapse-id` at most 64 bytes | 400 `BadCollapseId` |
/// | `apns-id` a canonical UUID | 400 `BadMessageId` |
/// | body at most 4096 bytes | 413 `PayloadTooLarge` |
/// | body not empty | 400 `PayloadEmpty` |
/// | body a JSON object | 400 `BadPayload` (Apple names no reason for malformed JSON) |
struct APNsRequestValidator {
    /// The outcome of the checks.
    enum Verdict {
        /// Every check passed: the push as it would be recorded (connection not yet set).
        case accept(RecordedPush)
        /// A check failed: the answer to send.
        case reject(StandInAnswer)
    }

    static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication",
                                         "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets"]
    static let maximumPayloadSize = 4096

    let verifier: ProviderTokenVerifier
    let allowedTopics: Set<String>?
    let tokenMaxAge: TimeInterval
    let tokenFutureTolerance: TimeInterval

    /// Runs the checks on a complete request.
    func validate(_ stream: StandInStream, now: Date) -> Verdict {
        let requestedId = stream.value("apns-id")
        let apnsId = requestedId.flatMap { Self.isCanonicalUUID($0) ? UUID(uuidString: $0) : nil } ?? UUID()
        func reject(_ status: Int, _ reason: String) -> Verdict {
            .reject(.error(status, reason, apnsId: apnsId))
        }
        guard stream.value(":method") == "POST" else { return reject(405, "MethodNotAllowed") }
        let path = stream.value(":path") ?? ""
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return reject(404, "BadPath") }
        let token = String(path.dropFirst(prefix.count))
        guard !token.isEmpty else { return reject(400, "MissingDeviceToken") }
        guard Self.isDeviceToken(token) else { return reject(400, "BadDeviceToken") }

        let singular = ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration",
                        "apns-collapse-id", "apns-id"]
        if singular.contains(where: { stream.values($0).count > 1 }) { return reject(400, "DuplicateHeaders") }

        guard let authorization = stream.value("authorization") else { return reject(403, "MissingProviderToken") }
        guard authorization.lowercased().hasPrefix("bearer ") else { return reject(403, "InvalidProviderToken") }
        let jwt = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        let keyID: String
        switch verifier.verify(jwt, now: now, maxAge: tokenMaxAge, futureTolerance: tokenFutureTolerance) {
        case .valid(let kid): keyID = kid
        case .expired: return reject(403, "ExpiredProviderToken")
        case .invalid: return reject(403, "InvalidProviderToken")
        }

        guard let topic = stream.value("apns-topic"), !topic.isEmpty else { return reject(400, "MissingTopic") }
        if let allowedTopics, !allowedTopics.contains(topic) { return reject(400, "TopicDisallowed") }
        guard let pushType = stream.value("apns-push-type"), Self.pushTypes.contains(pushType) else {
            return reject(400, "InvalidPushType")
        }
        var priority = 10
        if let text = stream.value("apns-priority") {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return reject(400, "BadPriority") }
            priority = value
        }
        if pushType == "background" && priority != 5 { return reject(400, "BadPriority") }
        var expiration: Int?
        if let text = stream.value("apns-expiration") {
            guard let value = Int(text), value >= 0 else { return reject(400, "BadExpirationDate") }
            expiration = value
        }
        let collapseId = stream.value("apns-collapse-id")
        if let collapseId, collapseId.utf8.count > 64 { return reject(400, "BadCollapseId") }
        if let requestedId, !Self.isCanonicalUUID(requestedId) { return reject(400, "BadMessageId") }

        guard stream.bodySize <= Self.maximumPayloadSize else { return reject(413, "PayloadTooLarge") }
        guard stream.bodySize > 0 else { return reject(400, "PayloadEmpty") }
        guard (try? JSONSerialization.jsonObject(with: stream.body)) is [String: Any] else {
            return reject(400, "BadPayload")
        }
        return .accept(RecordedPush(deviceToken: token.lowercased(), topic: topic, pushType: pushType,
                                    priority: priority, expiration: expiration, collapseId: collapseId,
                                    apnsId: apnsId, keyID: keyID, headers: stream.headerDictionary,
                                    payload: stream.body, receivedAt: now, connection: 0))
    }

    /// True for exactly 64 hex digits, the form of Apple's device tokens.
    static func isDeviceToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
        }
    }

    /// True for a canonical UUID (8-4-4-4-12 hex digits), the form `apns-id` must have.
    static func isCanonicalUUID(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
    }
}
