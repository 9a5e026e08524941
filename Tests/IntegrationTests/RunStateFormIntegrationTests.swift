import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Run states on PostgreSQL in either form (`BUZZKIT_RUN_STATE_FORM`): processes set to write
/// different forms share the runs table, each reading what the other wrote, as a fleet does
/// while it is upgraded process by process. The verbose form is kept in `runs.state`, where
/// every release reads it; the compact one in `run_states` (migration 0028), and a run's state
/// is in one place at a time.
final class RunStateFormIntegrationTests: XCTestCase {
    private func stored(_ id: UUID, _ pool: PostgresPool, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let (inRuns, inTable) = try pool.withConnection { db in
            let row = try db.query("SELECT state, (SELECT state FROM run_states WHERE run_id = \(id)) AS kept FROM runs WHERE id = \(id)")[0]
            return (try row.decode("state", as: String?.self), try row.decode("kept", as: String?.self))
        }
        if let inRuns {
            XCTAssertNil(inTable, "a state in runs.state has no row in run_states", file: file, line: line)
            XCTAssertTrue(inRuns.hasPrefix("{\"version\":1,"), "runs.state holds the verbose form: \(inRuns)", file: file, line: line)
            return inRuns
        }
        let kept = try XCTUnwrap(inTable, "the run's state is in neither place", file: file, line: line)
        XCTAssertTrue(kept.hasPrefix("{\"v\":2,"), "run_states holds the compact form: \(kept)", file: file, line: line)
        return kept
    }

    /// A tenant with subscriber s1 and one phone, and a run of theirs started but not stored.
    private func startedRun() throws -> (driver: PostgresStoreDriver, scenario: ConformanceTestCase.Scenario, run: RunRecord) {
        let driver = try PostgresStoreDriver()
        addTeardownBlock { driver.close() }
        let tenantId = try driver.tenant()
        let scenario = ConformanceTestCase.Scenario(driver: driver, tenantId: tenantId,
                                                    workflow: try driver.workflow(tenantId: tenantId, source: PipelineHarness.legDay))
        _ = try driver.subscriber(tenantId: tenantId, id: "s1", devices: 1)
        return (driver, scenario, scenario.startedRun("s1"))
    }

    func testProcessesWritingEitherFormShareTheirRuns() throws {
        let (driver, scenario, run) = try startedRun()
        let tenantId = scenario.tenantId
        let older = PostgresStore(pool: driver.pool, runStateForm: .verbose)
        let newer = PostgresStore(pool: driver.pool, runStateForm: .compact)

        try older.transaction { try $0.insertRun(run) }
        let verbose = try stored(run.id, driver.pool)
        XCTAssertTrue(verbose.hasPrefix("{\"version\":1,"), verbose)

        // The newer process reads the verbose state, moves the run on, and writes it compact.
        let localId = try XCTUnwrap(run.state.steps.compactMap(\.local).first?.localId)
        let moved = try newer.transaction { tx -> RunRecord in
            var record = try XCTUnwrap(try tx.lockRun(run.id))
            XCTAssertEqual(record.state.revision, run.state.revision)
            _ = record.state.handle(.planDelivered(localId: localId, deviceCount: 1), now: scenario.now)
            try tx.updateRun(record)
            return record
        }
        let compact = try stored(run.id, driver.pool)
        XCTAssertTrue(compact.hasPrefix("{\"v\":2,"), compact)
        XCTAssertLessThan(compact.utf8.count * 4, verbose.utf8.count * 3, "compact \(compact.utf8.count) B, verbose \(verbose.utf8.count) B")

        // The older process reads the compact state as the newer one wrote it, and writes it back
        // verbose; the newer one then reads that the same.
        try older.transaction { tx in
            var record = try XCTUnwrap(try tx.lockRun(run.id))
            XCTAssertEqual(record.state, moved.state)
            XCTAssertEqual(record.state.steps.compactMap(\.local).first?.planSentTo, 1)
            _ = record.state.handle(.acknowledged(localId: localId, messageId: nil), now: scenario.now.addingTimeInterval(5))
            try tx.updateRun(record)
        }
        XCTAssertTrue(try stored(run.id, driver.pool).hasPrefix("{\"version\":1,"))
        let last = try XCTUnwrap(try newer.transaction { try $0.run(run.id, tenantId: tenantId) })
        XCTAssertEqual(last.state.steps.compactMap(\.local).first?.acknowledged, true)
        XCTAssertEqual(last.state.summary, try XCTUnwrap(try older.transaction { try $0.run(run.id, tenantId: tenantId) }).state.summary)
    }

    /// A server from before 0028 starts a run and reads it with its own statements while a
    /// newer one moves it on: the newer reads the older's `runs.state`, and, set to the verbose
    /// form for the upgrade, writes it back where the older one reads it.
    func testARunStartedByAnOlderReleaseIsReadAndWrittenWhereItReads() throws {
        let (driver, scenario, run) = try startedRun()
        let tenantId = scenario.tenantId
        var writer = JSONWriter(capacity: 2048)
        run.state.write(to: &writer, includingWorkflow: false, form: .verbose)
        try driver.pool.withConnection { db in
            try db.execute("""
                INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state)
                VALUES (\(run.id), \(tenantId), \(run.workflowKey), \(run.workflowVersion), 's1', false, false, 'waiting', '{}', \(writer.string))
                """)
        }
        let upgrading = PostgresStore(pool: driver.pool, runStateForm: .verbose)
        let localId = try XCTUnwrap(run.state.steps.compactMap(\.local).first?.localId)
        try upgrading.transaction { tx in
            var record = try XCTUnwrap(try tx.lockRun(run.id))
            XCTAssertEqual(record.state, run.state)
            _ = record.state.handle(.planDelivered(localId: localId, deviceCount: 1), now: scenario.now)
            try tx.updateRun(record)
        }
        let olderReads = try driver.pool.withConnection { try $0.query("SELECT state FROM runs WHERE id = \(run.id)")[0].decode("state", as: String.self) }
        XCTAssertEqual(olderReads, try stored(run.id, driver.pool))
        XCTAssertTrue(olderReads.contains("\"planSentTo\":1"), olderReads)

        // Once the fleet is upgraded, the default moves the state into run_states.
        let upgraded = PostgresStore(pool: driver.pool, runStateForm: .compact)
        try upgraded.transaction { tx in
            var record = try XCTUnwrap(try tx.lockRun(run.id))
            _ = record.state.handle(.acknowledged(localId: localId, messageId: nil), now: scenario.now.addingTimeInterval(5))
            try tx.updateRun(record)
        }
        XCTAssertTrue(try stored(run.id, driver.pool).hasPrefix("{\"v\":2,"))
        XCTAssertEqual(try upgraded.transaction { try $0.run(run.id, tenantId: tenantId) }?.state.steps.compactMap(\.local).first?.acknowledged, true)
    }
}
