import BuzzEngine
import BuzzKitWire
import BuzzServer
import BuzzServerTesting
import Foundation
import PostgresClient

/// One implementation of the ``Store`` port, with the setup the directory does around it
/// (tenants, subscribers, devices, workflows), and the outbox over the same data, for
/// ``StoreConformanceTests`` and ``OutboxConformanceTests``.
protocol StoreDriver {
    var store: any Store { get }
    /// The outbox port over the same data.
    var outbox: any OutboxStore { get }
    /// The directory over the same data (setup goes through it, as the API's does).
    var directory: any Directory { get }
    /// A new tenant; returns its id.
    func tenant() throws -> String
    /// A subscriber with `devices` active iOS devices.
    func subscriber(tenantId: String, id: String, devices: Int) throws -> [DeviceRecord]
    func workflow(tenantId: String, source: JSONValue) throws -> WorkflowRecord
    /// How many `$push.opened` the tenant has recorded.
    func opens(tenantId: String) throws -> Int
    func close()
}

extension StoreDriver {
    func tenant() throws -> String { try directory.createTenant(name: "gym").tenantId }

    func subscriber(tenantId: String, id: String, devices: Int) throws -> [DeviceRecord] {
        try directory.putSubscriber(SubscriberRecord(tenantId: tenantId, id: id))
        return try (0..<devices).map { _ in
            var device = DeviceRecord(tenantId: tenantId, subscriberId: id, token: ConformanceTestCase.newToken(), topic: "com.example.gym")
            device.id = try directory.putDevice(device)
            return device
        }
    }

    func workflow(tenantId: String, source: JSONValue) throws -> WorkflowRecord {
        let definition = try WorkflowDefinition.parse(source)
        let version = try directory.putWorkflow(tenantId: tenantId, definition: definition, source: source)
        return WorkflowRecord(tenantId: tenantId, key: definition.key, version: version, definition: definition, source: source)
    }
}

/// ``InMemoryStore``, set up through ``InMemoryDirectory``: the driver the unit tests of the
/// pipeline use.
final class InMemoryStoreDriver: StoreDriver {
    let memory = InMemoryStore()
    var store: any Store { memory }
    var outbox: any OutboxStore { InMemoryOutbox(store: memory) }
    var directory: any Directory { InMemoryDirectory(store: memory) }

    func opens(tenantId: String) throws -> Int { memory.withState { $0.opens.filter { $0.tenantId == tenantId }.count } }

    func close() {}
}

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
