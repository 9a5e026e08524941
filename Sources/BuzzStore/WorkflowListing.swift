import BuzzServerCore
import Foundation

/// One current workflow as `GET /v1/workflows` lists it.
public struct WorkflowListing: Sendable, Equatable {
    public var key: String
    public var version: Int
    /// When its current version was stored.
    public var updatedAt: Date

    public init(key: String, version: Int, updatedAt: Date) {
        self.key = key
        self.version = version
        self.updatedAt = updatedAt
    }
}
