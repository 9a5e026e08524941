import BuzzServerCore
import Foundation
import PostgresClient

extension WindowDecision {
    /// A row of `window_decisions` as `SELECT` or `RETURNING` names its columns: `run_id`,
    /// `local_id`, `decided_at`, `acknowledged_at`, `fallback_reason`.
    init(row: PostgresRow) throws {
        self.init(runId: try row.decode("run_id"), localId: try row.decode("local_id"), decidedAt: try row.decode("decided_at"),
                  acknowledgedAt: try row.decode("acknowledged_at"), fallbackReason: try row.decode("fallback_reason"))
    }
}
