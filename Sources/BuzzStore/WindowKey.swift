import Foundation

/// One local-notification window of a run, as the store looks up what devices said of its
/// plan (``StoreTransaction/acknowledgments(tenantId:windows:)``): the subscriber the plan
/// was for, the run, and the plan's local id (`<runId>/<stepName>`).
public struct WindowKey: Sendable, Hashable {
    public var subscriberId: String
    public var runId: UUID
    public var localId: String

    public init(subscriberId: String, runId: UUID, localId: String) {
        self.subscriberId = subscriberId
        self.runId = runId
        self.localId = localId
    }
}
