import BuzzKitWire
import Foundation

/// A remembered cancellation, so that a plan push arriving after its cancel (APNs does not
/// keep order; Low Power Mode defers silent pushes) is not scheduled again.
public struct CancelTombstone: Sendable, Hashable, Codable {
    /// The cancelled id: a local id (cancelled by a tracked event or a fallback) or a cancel
    /// push's id (matched as a prefix).
    public var id: String
    /// Whether ``id`` matches by prefix as well (a `bk.cancel`), or only exactly.
    public var matchesPrefix: Bool
    /// When the cancellation happened.
    public var recordedAt: Date

    /// Whether a plan with `localId` was cancelled by this tombstone. Prefix matching is the
    /// contract's plain string prefix (``CancelPayload/matches(localId:)``).
    public func matches(localId: String) -> Bool {
        matchesPrefix ? CancelPayload(id: id).matches(localId: localId) : localId == id
    }
}
