import BuzzKitWire
import Foundation

/// Builds the pushes of docs/contract.md §4 and the ids and keys that go with them.
///
/// Decisions beyond the contract:
/// - **Message ids** are derived, not random: a UUID (version 8, RFC 9562) made from the
///   SHA-256 of the local id. Recomputing after a crash or redelivery gives the same id, and
///   the plan and its fallback share it, so a `$push.opened` is attributed to the message
///   whichever way it arrived.
/// - **Idempotency keys** are `<localId>/fallback` for a fallback and `<runId>/<stepName>/push`
///   for an ordinary push. APNs' `apns-collapse-id` takes at most 64 bytes, so a longer key
///   is replaced by the lowercase hex SHA-256 of the full key (exactly 64 bytes). Hex has no
///   `/`, so a shortened key never equals a verbatim one, and it stays stable and unique per
///   local window.
/// - **Size**: bodies over 4096 bytes throw ``EngineError/Code/payloadTooLarge``.
public enum PayloadBuilder {
    /// APNs' limit on a push body, in bytes.
    public static let apnsPayloadLimit = 4096
    /// APNs' limit on `apns-collapse-id`, in bytes.
    public static let collapseIdLimit = 64

    /// `<runId>/<stepName>`.
    public static func localId(runId: String, stepName: String) -> String {
        runId + "/" + stepName
    }

    /// `<localId>/fallback`, shortened to its SHA-256 hex when over 64 bytes.
    public static func fallbackIdempotencyKey(localId: String) -> String {
        bounded(LocalPlan.fallbackName(localId: localId))
    }

    /// `<runId>/<stepName>/push`, shortened to its SHA-256 hex when over 64 bytes.
    public static func pushIdempotencyKey(runId: String, stepName: String) -> String {
        bounded(runId + "/" + stepName + "/push")
    }

    /// A key itself when it fits `apns-collapse-id`, else its 64-character SHA-256 hex.
    public static func bounded(_ key: String) -> String {
        key.utf8.count <= collapseIdLimit ? key : SHA256.hex(key)
    }

    /// The message id of a step's notification: a version-8 UUID (RFC 9562) made from the
    /// first 16 bytes of the SHA-256 of the local id, lowercase (`5f0c…-…-8…`).
    public static func messageId(localId: String) -> String {
        var digest = SHA256.digest(localId.utf8)
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        return String(unsafeUninitializedCapacity: 36) { output in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = SHA256.hexDigit(digest[index] >> 4)
                output[position + 1] = SHA256.hexDigit(digest[index] & 0x0F)
                position += 2
            }
            return position
        }
    }

    /// The category id of a set of buttons: `bk.` and the first 16 hex digits of the SHA-256 of
    /// their wire form, so equal sets share one category and a changed set gets a new one.
    public static func categoryId(for actions: [NotificationAction]) -> String {
        var writer = JSONWriter(capacity: 256)
        writer.beginArray()
        for action in actions { action.write(to: &writer) }
        writer.endArray()
        return NotificationCategory.idPrefix + String(SHA256.hex(String(decoding: writer.bytes, as: UTF8.self)).prefix(16))
    }

    /// The silent plan push for a plan.
    public static func silentPlan(_ plan: LocalPlan, path: String = "") throws(EngineError) -> EncodedPayload<SilentPlanPayload> {
        try EncodedPayload(SilentPlanPayload(local: plan), path: path)
    }

    /// The cancel push for a run: `bk.cancel {id: runId}`. It is about 60 bytes plus the
    /// run id, so it is not size-checked (run ids are short, such as UUIDs).
    public static func cancel(runId: String) -> EncodedPayload<CancelPayload> {
        EncodedPayload(unchecked: CancelPayload(id: runId))
    }

    /// The fallback alert for a plan: same message id, title, body, deep link and data, with
    /// `bk.localId` naming the window it replaces.
    public static func fallback(for plan: LocalPlan, path: String = "") throws(EngineError) -> EncodedPayload<AlertPayload> {
        try EncodedPayload(AlertPayload(title: plan.title, body: plan.body, presentation: plan.presentation, messageId: plan.messageId,
                                        localId: plan.id, deepLink: plan.deepLink, data: plan.data), path: path)
    }

    /// An ordinary alert push.
    public static func alert(_ payload: AlertPayload, path: String = "") throws(EngineError) -> EncodedPayload<AlertPayload> {
        try EncodedPayload(payload, path: path)
    }

    /// The larger of a send's plan and alert bodies with its templates left as written and
    /// a 36-character run id, for the definition-time size check.
    static func largestBodySize(of send: Step.Send, stepName: String, deviceCancelOn: [String]) -> Int {
        let localId = localId(runId: String(repeating: "0", count: 36), stepName: stepName)
        let messageId = String(repeating: "0", count: 36)
        let plan = LocalPlan(id: localId, messageId: messageId,
                             fireAt: FireAt(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 59),
                             title: send.title.source, body: send.body.source, deepLink: send.deepLink,
                             data: send.data, cancelOn: deviceCancelOn, expiresAt: Date(timeIntervalSince1970: 1_798_761_599),
                             presentation: send.presentation, actions: send.actions)
        let alert = AlertPayload(title: send.title.source, body: send.body.source, presentation: send.presentation, messageId: messageId,
                                 localId: localId, deepLink: send.deepLink, data: send.data)
        return max(SilentPlanPayload(local: plan).jsonBytes.count, alert.jsonBytes.count)
    }
}
