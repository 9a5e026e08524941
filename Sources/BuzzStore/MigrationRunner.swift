import BuzzServerCore
import Foundation
import PostgresClient

/// Applies pending migrations in order, each recorded in `schema_migrations`.
///
/// The whole run holds a transaction-scoped advisory lock, so two instances starting at once
/// serialise: the second waits, then finds nothing left to do. Every migration runs in that
/// one transaction, so a failing migration leaves the database as it was.
public struct MigrationRunner: Sendable {
    /// Arbitrary constant: the advisory-lock key of BuzzKit migrations.
    static let lockKey: Int64 = 0x42_757A_7A4B_6974

    public let pool: PostgresPool
    /// The schema to migrate (created when missing); `public` by default.
    public let schema: String

    public init(pool: PostgresPool, schema: String = "public") {
        self.pool = pool
        self.schema = schema
    }

    /// Applies what is pending and returns the versions it applied.
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws -> [Int] {
        guard schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !schema.isEmpty else {
            throw ServerError(.configuration, "schema name \"\(schema)\" may only contain letters, digits and _")
        }
        return try pool.withTransaction { connection in
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"))
            try connection.execute(PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(schema)"))
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    integer PRIMARY KEY,
                    name       text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let rows = try connection.query("SELECT version FROM schema_migrations")
            let applied = Set(try rows.map { try $0.decode("version", as: Int.self) })
            var done: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                try connection.execute(PostgresQuery(unsafeSQL: migration.sql))
                try connection.execute("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
                done.append(migration.version)
            }
            return done
        }
    }

    /// The database's text collation (`LC_COLLATE`). Under anything but `C` or `POSIX`,
    /// PostgreSQL 15 compares every text key through `strcoll` (README, Operations).
    public func collation() throws -> String {
        try pool.withConnection { db in
            try db.query("SELECT datcollate::text AS collation FROM pg_database WHERE datname = current_database()")[0].decode("collation")
        }
    }

    /// Whether ``collation()`` compares text byte by byte.
    public static func comparesBytes(_ collation: String) -> Bool { collation == "C" || collation == "POSIX" }
}
