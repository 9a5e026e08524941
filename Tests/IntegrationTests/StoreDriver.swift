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
