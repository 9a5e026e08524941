import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Data that does not grow forever: the sweeper removes finished runs past their window with
/// everything recorded for them, and event ids past theirs, and nothing else.
final class RetentionIntegrationTests: PipelineTestCase {
    /// A run of `subscriber` whose plan reached its phone, acknowledged and opened; returns its id.
    func windowRun(_ subscriber: String) throws -> UUID {
        let token = try XCTUnwrap(try pipeline.subscriber(subscriber).first)
        try pipeline.scheduleWorkout(subscriber, at: Date().addingTimeInterval(3600))
        // The trigger stage pushes the plan just before it commits the run: wait for both.
        XCTAssertTrue(TestServices.eventually(timeout: 5) {
            !self.pipeline.pushes(to: token).isEmpty && ((try? self.pipeline.runs().contains { $0.subscriberId == subscriber }) ?? false)
        })
        let run = try XCTUnwrap(try pipeline.runs().first { $0.subscriberId == subscriber })
        let plan = try JSONDecoder().decode(SilentPlanPayload.self, from: try XCTUnwrap(pipeline.pushes(to: token).first).payload).local
        try pipeline.pool.withConnection { db in
            try db.execute("""
                INSERT INTO acknowledgments (tenant_id, subscriber_id, local_id, device, message_id, acknowledged_at)
                VALUES (\(pipeline.tenantId), \(subscriber), \(plan.id), \(token), \(plan.messageId), now())
                """)
            try db.execute("""
                INSERT INTO opens (tenant_id, message_id, subscriber_id, run_id, opened_at) VALUES (\(pipeline.tenantId), \(plan.messageId), \(subscriber), \(run.id), now())
                """)
        }
        return run.id
    }

    func count(_ table: String, runId: UUID) throws -> Int {
        try pipeline.pool.withConnection { db in
            let column = table == "runs" ? "id" : "run_id"
            if table == "acknowledgments" {
                return try db.query("SELECT count(*) AS n FROM acknowledgments WHERE local_id LIKE \(runId.uuidString.lowercased() + "/%")")[0].decode("n", as: Int.self)
            }
            return try db.query("SELECT count(*) AS n FROM \(unsafeRaw: table) WHERE \(unsafeRaw: column) = \(runId)")[0].decode("n", as: Int.self)
        }
    }

    func testFinishedRunsPastTheirWindowGoWithEverythingRecordedForThemAndNothingElseDoes() throws {
        let expired = try windowRun("old"), open = try windowRun("open"), recent = try windowRun("recent")
        let tables = ["runs", "deliveries", "acknowledgments", "opens", "local_plans"]
        XCTAssertEqual(try tables.map { try count($0, runId: expired) }, [1, 1, 1, 1, 1])
        _ = try pipeline.commands.cancel(tenantId: pipeline.tenantId, runId: expired)
        _ = try pipeline.commands.cancel(tenantId: pipeline.tenantId, runId: recent)
        // Each cancel reaches the phone that had the plan: a second delivery per run.
        XCTAssertTrue(try TestServices.eventually(timeout: 5) { try self.count("deliveries", runId: expired) == 2 && self.count("deliveries", runId: recent) == 2 })
        try pipeline.pool.withConnection { db in
            // Finished 31 days ago; open (waiting) as long; and an event id of 8 days and one of today.
            try db.execute("UPDATE runs SET updated_at = now() - interval '31 days' WHERE id = ANY(\([expired, open])::uuid[])")
            try db.execute("""
                INSERT INTO processed_events (tenant_id, event_id, processed_at) VALUES
                (\(pipeline.tenantId), 'id:old', now() - interval '8 days'), (\(pipeline.tenantId), 'id:new', now())
                """)
        }
        let before = try tables.map { try count($0, runId: recent) }
        XCTAssertEqual(before, [1, 2, 1, 1, 1], "the plan and the cancel were delivered")
        let sweeper = RetentionSweeper(pool: pipeline.pool, settings: RetentionSettings())
        let removed = try sweeper.sweepBatch(now: Date())
        XCTAssertEqual(removed.runs, 1)
        XCTAssertEqual(try tables.map { try count($0, runId: expired) }, [0, 0, 0, 0, 0], "the expired run and all of its rows")
        XCTAssertEqual(try count("runs", runId: open), 1, "an open run stays, however old")
        XCTAssertEqual(try tables.map { try count($0, runId: recent) }, before, "a recently finished run stays whole")
        let ids = try pipeline.pool.withConnection { db in
            try db.query("SELECT event_id FROM processed_events WHERE tenant_id = \(pipeline.tenantId) AND event_id LIKE 'id:%' ORDER BY event_id")
                .map { try $0.decode("event_id", as: String.self) }
        }
        XCTAssertEqual(ids, ["id:new"], "the event id past its 7 days is forgotten")
    }

    func testAPreviousSigningSecretIsClearedOnceItsGraceEnds() throws {
        let other = try pipeline.directory.createTenant(name: "other gym")
        _ = try pipeline.directory.rotateSigningSecret(tenantId: pipeline.tenantId, grace: 60)
        _ = try pipeline.directory.rotateSigningSecret(tenantId: other.tenantId, grace: 3_600)
        func previous(_ tenantId: String) throws -> String? {
            try pipeline.pool.withConnection { db in
                try db.query("SELECT previous_signing_secret FROM tenants WHERE id = \(tenantId)")[0].decode("previous_signing_secret", as: String?.self)
            }
        }
        let sweeper = RetentionSweeper(pool: pipeline.pool, settings: RetentionSettings())
        try sweeper.sweepBatch(now: Date())
        XCTAssertNotNil(try previous(pipeline.tenantId), "still in its grace: tokens signed with it verify")
        try sweeper.sweepBatch(now: Date().addingTimeInterval(120))
        XCTAssertNil(try previous(pipeline.tenantId), "past its grace it is gone")
        XCTAssertNotNil(try previous(other.tenantId), "another tenant's secret in its grace stays")
        let tenant = try XCTUnwrap(try pipeline.directory.tenant(pipeline.tenantId))
        XCTAssertEqual(tenant.signingSecrets(at: Date()).count, 1)
    }

    func testDevicesInactivePastTheirWindowArePurgedAndNoOthers() throws {
        let tokens = try ["gone", "recent", "active"].map { try XCTUnwrap(try pipeline.subscriber("d-\($0)").first) }
        try pipeline.pool.withConnection { db in
            try db.execute("""
                UPDATE devices SET active = false, inactive_reason = 'unregistered',
                       inactive_at = CASE token WHEN \(tokens[0]) THEN now() - interval '31 days' ELSE now() - interval '1 day' END
                WHERE token = ANY(\([tokens[0], tokens[1]])::text[])
                """)
            try db.execute("UPDATE devices SET created_at = now() - interval '400 days' WHERE token = \(tokens[2])")
        }
        let sweeper = RetentionSweeper(pool: pipeline.pool, settings: RetentionSettings())
        XCTAssertEqual(try sweeper.sweepBatch(now: Date()).devices, 1)
        let left = try pipeline.pool.withConnection { db in
            try db.query("SELECT token FROM devices WHERE token = ANY(\(tokens)::text[]) ORDER BY subscriber_id").map { try $0.decode("token", as: String.self) }
        }
        XCTAssertEqual(left, [tokens[2], tokens[1]], "the active device, however old, and the one inactive for a day stay")
    }

    func testTheServiceDrainsABacklogInSmallBatchesAndStopsWhenAsked() throws {
        let runs = try (1...5).map { try windowRun("s\($0)") }
        for run in runs { _ = try pipeline.commands.cancel(tenantId: pipeline.tenantId, runId: run) }
        try pipeline.pool.withConnection { db in
            try db.execute("UPDATE runs SET updated_at = now() - interval '2 days' WHERE id = ANY(\(runs)::uuid[])")
        }
        var settings = RetentionSettings()
        settings.runDays = 1
        settings.batch = 2
        settings.intervalSeconds = 0.05
        settings.pauseSeconds = 0.01
        let sweeper = RetentionSweeper(pool: pipeline.pool, settings: settings)
        let stopped = DispatchSemaphore(value: 0)
        Thread { sweeper.run(); stopped.signal() }.start()
        XCTAssertTrue(try TestServices.eventually(timeout: 5) { try runs.allSatisfy { try self.count("runs", runId: $0) == 0 } }, "three batches of at most 2")
        sweeper.shutdown(deadline: Date().addingTimeInterval(1))
        XCTAssertEqual(stopped.wait(timeout: .now() + 2), .success, "it stops when asked")
    }
}
