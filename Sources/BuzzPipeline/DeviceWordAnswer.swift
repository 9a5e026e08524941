import BuzzStore

/// What one request's devices are told of their own words, out of the outcome of the
/// transaction that recorded them with other requests' (``DeviceWordBatcher``): the local ids
/// among its own that came after their window's fallback was decided, and those of plans whose
/// run was cancelled (``AcknowledgmentOutcome``); or that its subscriber was erased.
public struct DeviceWordAnswer: Sendable, Equatable {
    public var late: Set<String>
    public var cancelled: Set<String>
    /// The request's subscriber was erased: nothing of it was recorded, and the device is
    /// refused (`410 subscriber_erased`), so its late traffic recreates nothing.
    public var erasedSubscriber: String?

    public init(late: Set<String> = [], cancelled: Set<String> = [], erasedSubscriber: String? = nil) {
        self.late = late
        self.cancelled = cancelled
        self.erasedSubscriber = erasedSubscriber
    }

    /// The part of `outcome` about the plans `facts` name.
    public init(_ outcome: AcknowledgmentOutcome, of facts: [DeviceAcknowledgment]) {
        guard !outcome.late.isEmpty || !outcome.cancelled.isEmpty else { self.init(); return }
        let own = Set(facts.map(\.localId))
        self.init(late: outcome.late.intersection(own), cancelled: outcome.cancelled.intersection(own))
    }
}
