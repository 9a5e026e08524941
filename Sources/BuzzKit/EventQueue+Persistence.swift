import BuzzKitWire

/// The queue as the SDK persists it after every event: the synthesized `Codable` form, each
/// event in its wire form, written by hand instead of through `JSONEncoder` (see
/// ``PlanBook``'s `write(to:)`).
extension EventQueue: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "events")
        writer.beginArray()
        for event in events { event.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
