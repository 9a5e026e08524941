import BuzzKitWire
import BuzzServerCore
import Foundation

/// A device a cancel goes to, carried in the cancel message itself when the device's row is
/// gone by the time the message is sent (a subscriber's erasure deletes its devices in the
/// same transaction that cancels its runs).
public struct CancelRecipient: Sendable, Equatable, Codable, JSONReadable, JSONWritable {
    public var deviceId: UUID
    public var token: String
    public var topic: String
    public var environment: String

    public init(_ device: DeviceRecord) {
        deviceId = device.id
        token = device.token
        topic = device.topic
        environment = device.environment
    }

    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        let id = try fields.string("deviceId")
        guard let uuid = UUID(uuidString: id) else { throw JSONFields.Failure(path: path + ".deviceId", reason: "\"\(id)\" is not a UUID") }
        deviceId = uuid
        token = try fields.string("token")
        topic = try fields.string("topic")
        environment = try fields.string("environment")
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("deviceId", deviceId.uuidString)
        writer.member("token", token)
        writer.member("topic", topic)
        writer.member("environment", environment)
        writer.endObject()
    }

    /// The device as the sender addresses it, for `subscriberId` of `tenantId`.
    package func device(tenantId: String, subscriberId: String) -> DeviceRecord {
        DeviceRecord(id: deviceId, tenantId: tenantId, subscriberId: subscriberId, token: token, topic: topic, environment: environment)
    }
}
