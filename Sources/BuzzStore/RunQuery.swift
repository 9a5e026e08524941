import BuzzServerCore
import Foundation
import PostgresClient

/// A page request of `GET /v1/runs`: the tenant's runs newest first, filtered, after a cursor.
public struct RunQuery: Sendable, Equatable {
    public var subscriberId: String?
    public var workflowKey: String?
    public var status: String?
    /// The last run of the previous page (nil: the first page).
    public var after: Cursor?
    /// Runs on the page (1…100).
    public var limit: Int

    public init(subscriberId: String? = nil, workflowKey: String? = nil, status: String? = nil, after: Cursor? = nil, limit: Int = 50) {
        self.subscriberId = subscriberId
        self.workflowKey = workflowKey
        self.status = status
        self.after = after
        self.limit = limit
    }

    /// Where a page ends: the run's creation time in microseconds since 1970 and its id, the
    /// order of the index the search walks (keyset pagination: a page deep down costs what
    /// the first does).
    public struct Cursor: Sendable, Equatable {
        public var createdMicros: Int64
        public var id: UUID

        public init(createdMicros: Int64, id: UUID) {
            self.createdMicros = createdMicros
            self.id = id
        }

        /// `<micros>_<run id>`, opaque to clients.
        public var text: String { "\(createdMicros)_\(id.lowercasedText)" }

        /// Reads ``text``; nil for anything else.
        public init?(text: String) {
            let parts = text.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
            self.init(createdMicros: micros, id: id)
        }

        /// Whether a run created at `micros` with `id` comes after this cursor, newest first.
        public func precedes(micros: Int64, id other: UUID) -> Bool {
            micros != createdMicros ? micros < createdMicros : UUID.precedes(other, id)
        }
    }

    /// A run of a page with where it sits in the order.
    public struct Found: Sendable {
        public var run: RunRecord
        public var cursor: Cursor

        public init(run: RunRecord, cursor: Cursor) {
            self.run = run
            self.cursor = cursor
        }
    }
}
