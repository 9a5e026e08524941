import BuzzKitWire
import Foundation

/// A record as the book persists it (see ``PlanBook``'s `write(to:)`): the synthesized
/// `Codable` form, written by hand.
extension PlanRecord: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "plan")
        plan.write(to: &writer)
        writer.key(literal: "state")
        writer.string(state.rawValue)
        if let acknowledgmentEventId {
            writer.key(literal: "acknowledgmentEventId")
            writer.string(acknowledgmentEventId)
        }
        writer.key(literal: "acknowledgmentConfirmed")
        writer.bool(acknowledgmentConfirmed)
        writer.key(literal: "acknowledgmentUncertain")
        writer.bool(acknowledgmentUncertain)
        writer.key(literal: "receivedAt")
        writer.double(receivedAt.timeIntervalSinceReferenceDate)
        if let releasedAt {
            writer.key(literal: "releasedAt")
            writer.double(releasedAt.timeIntervalSinceReferenceDate)
        }
        if let receivedZone {
            writer.key(literal: "receivedZone")
            writer.beginObject()
            writer.key(literal: "identifier")
            writer.string(receivedZone.identifier)
            writer.endObject()
        }
        writer.endObject()
    }
}
