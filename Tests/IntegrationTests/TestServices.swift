import AMQPClient
import BuzzServer
import Foundation
import PostgresClient
import XCTest

/// Where the real services are: `BUZZKIT_*` variables, or the defaults of `scripts/services.sh`.
enum TestServices {
    static let environment = ProcessInfo.processInfo.environment
    static let databaseURL = environment["BUZZKIT_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/buzzkit"
    static let amqpURLString = environment["BUZZKIT_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:55672/%2f"
    static var amqpURL: AMQPURL { try! AMQPURL(amqpURLString) }
    static var amqp: AMQPEndpoints { AMQPEndpoints(amqpURL) }
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A fresh, unique name for a schema or queue, so tests never see each other's data.
    /// The environment a spawned `buzzkit` process needs for the harness's schema and queues.
    static func processEnvironment(schema: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BUZZKIT_DATABASE_URL"] = databaseURL
        environment["BUZZKIT_DB_SCHEMA"] = schema
        environment["BUZZKIT_AMQP_URL"] = amqpURLString
        environment["BUZZKIT_QUEUE_PREFIX"] = schema + "."
        return environment
    }

    /// Runs `body(0..<count)` on `count` threads of their own; wait on the group for all of them.
    static func threads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        return group
    }

    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A pool whose connections use `schema` (created if missing).
    static func pool(schema: String, maxConnections: Int = 4, acquireTimeout: TimeInterval = 10) throws -> PostgresPool {
        let setup = try PostgresConnection(url: databaseURL)
        try setup.execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"))
        setup.close()
        let separator = databaseURL.contains("?") ? "&" : "?"
        return PostgresPool(.init(url: databaseURL + "\(separator)options=-csearch_path%3D\(schema)", maxConnections: maxConnections,
                                  acquireTimeout: acquireTimeout))
    }

    static func dropSchema(_ schema: String) {
        if let connection = try? PostgresConnection(url: databaseURL) {
            _ = try? connection.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"))
        }
    }

    /// Runs `scripts/services.sh <action>` (used to restart a broker or database mid-test).
    /// Spawned directly and reaped with waitpid: Foundation's Process can hang when the child
    /// leaves a daemon behind.
    static func services(_ action: String) throws {
        let script = repositoryRoot.appendingPathComponent("scripts/services.sh").path
        let status = spawnAndWait(["/bin/bash", script, action])
        guard status == 0 else {
            throw NSError(domain: "services", code: Int(status), userInfo: [NSLocalizedDescriptionKey: "scripts/services.sh \(action) exited \(status)"])
        }
    }

    static func spawnAndWait(_ argv: [String]) -> Int32 {
        var pid: pid_t = 0
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        guard posix_spawn(&pid, argv[0], nil, nil, &cArgs, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    /// Polls `condition` until it holds or `timeout` passes.
    static func eventually(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }
}

extension TestServices {
    /// A pool on a fresh schema with every migration applied.
    static func migratedPool(schema: String, maxConnections: Int = 8, acquireTimeout: TimeInterval = 10) throws -> PostgresPool {
        let pool = try self.pool(schema: schema, maxConnections: maxConnections, acquireTimeout: acquireTimeout)
        try migrate(schema)
        return pool
    }

    /// Applies the bundled migrations up to `version` (all of them when nil) to `schema`;
    /// returns the versions applied now. Migration tests step a schema through them.
    @discardableResult
    static func migrate(_ schema: String, upTo version: Int? = nil) throws -> [Int] {
        let admin = PostgresPool(url: databaseURL, maxConnections: 1)
        defer { admin.close() }
        return try MigrationRunner(pool: admin, schema: schema).migrate(Migration.bundled().filter { $0.version <= (version ?? .max) })
    }

    /// The URL of a pool whose connections use `schema`.
    static func url(schema: String) -> String {
        databaseURL + (databaseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }
}
