import BuzzKitWire
import Foundation

/// The book as the SDK persists it, written by hand.
///
/// The SDK saves the whole book on every change, and a crowded phone's book holds 64 plans
/// and more: through `JSONEncoder` (each plan written, parsed back and encoded again) saving
/// it was a third of a simulated fleet's CPU and what made crowded phones' wakes slow. The
/// bytes are the JSON the synthesized `Codable` conformance writes and reads (the same keys,
/// optionals left out when `nil`, dates as seconds since 2001, a zone as its identifier), so
/// a book saved either way is read back with `JSONDecoder`.
extension PlanBook: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "records")
        writer.beginObject()
        for localId in records.keys.sorted() {
            writer.key(localId)
            records[localId]!.write(to: &writer)
        }
        writer.endObject()
        writer.key(literal: "registry")
        writer.beginObject()
        writer.key(literal: "localIdsByEvent")
        writer.beginObject()
        for name in registry.localIdsByEvent.keys.sorted() {
            writer.key(name)
            writer.beginArray()
            for localId in registry.localIdsByEvent[name]! { writer.string(localId) }
            writer.endArray()
        }
        writer.endObject()
        writer.endObject()
        writer.key(literal: "tombstones")
        writer.beginArray()
        for tombstone in tombstones {
            writer.beginObject()
            writer.member("id", tombstone.id)
            writer.member("matchesPrefix", tombstone.matchesPrefix)
            writer.member("recordedAt", tombstone.recordedAt.timeIntervalSinceReferenceDate)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
