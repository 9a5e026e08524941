import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Run states on PostgreSQL in either form (`BUZZKIT_RUN_STATE_FORM`): processes set to write
/// different forms share the runs table, each reading what the other wrote, as a fleet does
/// while it is upgraded process by process.
final class RunStateFormIntegrationTests: XCTestCase {
    private func stored(_ id: UUID, _ pool: PostgresPool) throws -> String {
        try pool.withConnection { try $0.query("SELECT state FROM runs WHERE id = \(id)")[0].decode("state", as: String.self) }
    }

    func testProcessesWritingEitherFormShareTheirRuns() throws {
        let driver = try PostgresStoreDriver()
        defer { driver.close() }
        let tenantId = try driver.tenant()
        let scenario = ConformanceTestCase.Scenario(driver: driver, tenantId: tenantId,
                                                    workflow: try driver.workflow(tenantId: tenantId, source: PipelineHarness.legDay))
        _ = try driver.subscriber(tenantId: tenantId, id: "s1", devices: 1)
        let older = PostgresStore(pool: driver.pool, runStateForm: .verbose)
        let newer = PostgresStore(pool: driver.pool, runStateForm: .compact)
        let run = scenario.startedRun("s1")

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
}
