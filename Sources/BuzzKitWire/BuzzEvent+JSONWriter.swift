import Foundation

extension BuzzEvent {
    /// Writes the wire form (the same JSON as `Codable` gives, keys in contract order)
    /// without a `JSONEncoder`: the API writes every accepted event this way.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let id {
            writer.key(literal: "id")
            writer.string(id)
        }
        writer.key(literal: "event")
        writer.string(event)
        writer.key(literal: "subscriberId")
        writer.string(subscriberId)
        writer.key(literal: "properties")
        writer.write(properties)
        writer.key(literal: "timestamp")
        writer.string(RFC3339.format(timestamp))
        writer.endObject()
    }

    /// The wire form as bytes.
    public var jsonData: Data {
        var writer = JSONWriter(capacity: 128)
        write(to: &writer)
        return Data(writer.bytes)
    }
}
