import BuzzKitWire
import Foundation

/// One stored version of a workflow (`GET /v1/workflows/{key}/versions`): each `PUT` adds
/// one, and none is ever changed, so a run can be read against the version it started with.
public struct WorkflowVersion: Sendable, Equatable {
    public var version: Int
    /// When it was stored.
    public var createdAt: Date
    /// The JSON as the tenant stored it.
    public var source: JSONValue

    public init(version: Int, createdAt: Date, source: JSONValue) {
        self.version = version
        self.createdAt = createdAt
        self.source = source
    }
}
