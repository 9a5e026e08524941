import BuzzServerCore
import Foundation

/// What one ``OutboxStore/relayDue(limit:settle:publish:)`` round did with the rows it claimed.
public struct RelayRound: Sendable, Equatable {
    /// Rows published to the broker.
    public var published: Int
    /// Local windows settled "scheduled on device" instead (``DueWindow``).
    public var settled: Int

    public init(published: Int = 0, settled: Int = 0) { (self.published, self.settled) = (published, settled) }

    /// Every row the round claimed.
    public var claimed: Int { published + settled }
}
