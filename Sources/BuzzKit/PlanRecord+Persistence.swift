import BuzzKitWire
import Foundation

/// A record as the book persists it (see ``PlanBook``'s `write(to:)`): the synthesized
/// `Codable` form, written by hand.
extension PlanRecord: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("plan", plan)
        writer.member("state", state.rawValue)
        if let acknowledgmentEventId {
            writer.member("acknowledgmentEventId", acknowledgmentEventId)
        }
        writer.member("acknowledgmentConfirmed", acknowledgmentConfirmed)
        writer.member("acknowledgmentUncertain", acknowledgmentUncertain)
        writer.member("receivedAt", receivedAt.timeIntervalSinceReferenceDate)
        if let releasedAt {
            writer.member("releasedAt", releasedAt.timeIntervalSinceReferenceDate)
        }
        if let receivedZone {
            writer.key(literal: "receivedZone")
            writer.beginObject()
            writer.member("identifier", receivedZone.identifier)
            writer.endObject()
        }
        writer.endObject()
    }
}
