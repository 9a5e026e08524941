import BuzzKitWire
import Foundation

extension KeyValueStore {
    /// Decodes the JSON value stored under `key`; `nil` when the key is absent.
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        let stored: Data?
        do {
            stored = try data(forKey: key)
        } catch {
            throw BuzzKitError(.storageUnreadable, context: "read \(key)",
                               message: "the store could not be read (on iOS, before the phone's first unlock since it restarted): \(error)")
        }
        guard let stored else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: stored)
        } catch {
            throw BuzzKitError(.storage, context: "read \(key)", message: "the stored value is not valid: \(error)")
        }
    }

    /// Encodes `value` as JSON under `key`.
    public func setValue<Value: Encodable>(_ value: Value, forKey key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded: Data
        do {
            encoded = try encoder.encode(value)
        } catch {
            throw BuzzKitError(.storage, context: "write \(key)", message: "the value could not be encoded: \(error)")
        }
        do {
            try setData(encoded, forKey: key)
        } catch {
            throw BuzzKitError(.storage, context: "write \(key)", message: "the store could not be written: \(error)")
        }
    }

    /// Stores `value`'s hand-written JSON under `key` (what ``value(_:forKey:)`` reads back
    /// when it writes its `Codable` form): no `JSONEncoder` for state saved on every change.
    public func setJSON(_ value: some JSONWritable, forKey key: String, capacity: Int = 1024) throws {
        do {
            try setData(Data(value.jsonBytes(capacity: capacity)), forKey: key)
        } catch {
            throw BuzzKitError(.storage, context: "write \(key)", message: "the store could not be written: \(error)")
        }
    }
}
