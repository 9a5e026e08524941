import BuzzKitWire
import BuzzServerCore
import Foundation

/// The latest event of one name that may cancel runs, per subscriber: kept so that a run
/// whose trigger is handled after a cancelling event that happened later (the trigger waited
/// in the bulk lane, or another worker took it) starts cancelled instead of sending.
///
/// A mark's time is the event's timestamp, but never later than when the server handled it:
/// a phone whose clock runs ahead cannot cancel runs triggered after it spoke.
public struct CancelMark: Sendable, Equatable {
    public var subscriberId: String
    public var event: String
    public var at: Date
    public var properties: [String: JSONValue]

    public init(subscriberId: String, event: String, at: Date, properties: [String: JSONValue]) {
        self.subscriberId = subscriberId
        self.event = event
        self.at = at
        self.properties = properties
    }

    /// The mark a cancelling event leaves when handled at `now`.
    public init(_ event: BuzzEvent, now: Date) {
        self.init(subscriberId: event.subscriberId, event: event.event, at: min(event.timestamp, now), properties: event.properties)
    }

    /// The event again, at the mark's time, to feed a run.
    public var asEvent: BuzzEvent {
        BuzzEvent(event: event, subscriberId: subscriberId, properties: properties, timestamp: at)
    }

    /// One mark per subscriber and name: the latest of `marks`.
    public static func latest(_ marks: [CancelMark]) -> [CancelMark] {
        var byKey: [String: CancelMark] = [:]
        for mark in marks {
            let key = mark.subscriberId + "\u{0}" + mark.event
            if let kept = byKey[key], kept.at > mark.at { continue }
            byKey[key] = mark
        }
        return byKey.keys.sorted().map { byKey[$0]! }
    }
}
