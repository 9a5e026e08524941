import BuzzServer
import Foundation
import PostgresClient

extension BenchSettings {
    /// Drops `schema` and migrates it afresh (every bench phase starts from empty tables).
    func freshSchema(_ schema: String) throws {
        let admin = try PostgresConnection(url: databaseURL)
        try admin.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"))
        admin.close()
        let adminPool = PostgresPool(url: databaseURL, maxConnections: 1)
        defer { adminPool.close() }
        try MigrationRunner(pool: adminPool, schema: schema).migrate(Migration.bundled())
    }
}
