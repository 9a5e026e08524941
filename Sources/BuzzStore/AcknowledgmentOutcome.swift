import BuzzServerCore
import Foundation

/// What recording a batch of devices' words on plans (`$local.scheduled`, `$local.released`)
/// did (``StoreTransaction/recordAcknowledgments(tenantId:_:at:)``).
public struct AcknowledgmentOutcome: Sendable, Equatable {
    /// Acknowledgments that moved a device's standing forward (new ones, not repeats).
    public var acknowledged: Int
    /// Releases that moved a device's standing forward.
    public var released: Int
    /// The local ids of acknowledgments that came after their window's fallback was decided:
    /// not recorded, and not counted. The API tells the device (`"late"` in its `202`), so a
    /// phone still holding that plan withdraws it and the fallback is the one shown.
    public var late: Set<String>
    /// The local ids of acknowledgments of plans whose run was cancelled: not recorded. The
    /// API tells the device (`"cancelled"` in its `202`): the cancel push may never reach it
    /// (APNs keeps one push per app for an offline phone, and not always the newest), so the
    /// answer is the phone's last chance to learn it before the plan fires.
    public var cancelled: Set<String>

    public init(acknowledged: Int = 0, released: Int = 0, late: Set<String> = [], cancelled: Set<String> = []) {
        self.acknowledged = acknowledged
        self.released = released
        self.late = late
        self.cancelled = cancelled
    }
}
