import BuzzEngine
import BuzzKitWire
import BuzzServer
import Foundation
import PostgresClient

/// ``PostgresStore`` on a schema of its own, set up through ``Directory`` as the API does.
final class PostgresStoreDriver: StoreDriver {
    let schema = TestServices.uniqueName("store")
    let pool: PostgresPool
    let directory: any Directory
    let store: any Store
    let outbox: any OutboxStore

    init() throws {
        pool = try TestServices.migratedPool(schema: schema)
        directory = PostgresDirectory(pool: pool)
        store = PostgresStore(pool: pool)
        outbox = PostgresOutbox(pool: pool)
    }

    func opens(tenantId: String) throws -> Int {
        try pool.withConnection { try $0.query("SELECT count(*) AS n FROM opens WHERE tenant_id = \(tenantId)")[0].decode("n", as: Int.self) }
    }

    func close() {
        pool.close()
        TestServices.dropSchema(schema)
    }
}
