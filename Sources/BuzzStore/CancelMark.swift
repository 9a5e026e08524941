import BuzzKitWire
import BuzzServerCore
import Foundation

/// The latest event of one name that may cancel runs, per subscriber: kept so that a run
/// whose trigger is handled after a cancelling event that happened later (the trigger waited
/// in the bulk lane, or another worker took it) starts cancelled instead of sending.
///
/// A mark's time is the event's timestamp, but never later than when the server handled it:
/// a phone whose clock runs ahead cannot cancel runs triggered after it spoke.
///
/// The API records a mark as it accepts the event, `pending` until the trigger stage handles
/// it: a timer that comes meanwhile replays it on its run, so a cancel counts from its 202.
public struct CancelMark: Sendable, Equatable {
    public var subscriberId: String
    public var event: String
    public var at: Date
    public var properties: [String: JSONValue]
    /// Accepted by the API, not yet handled by the trigger stage.
    public var pending = false

    public init(subscriberId: String, event: String, at: Date, properties: [String: JSONValue], pending: Bool = false) {
        self.subscriberId = subscriberId
        self.event = event
        self.at = at
        self.properties = properties
        self.pending = pending
    }

    /// The mark a cancelling event leaves when handled (or, `pending`, accepted) at `now`.
    public init(_ event: BuzzEvent, now: Date, pending: Bool = false) {
        self.init(subscriberId: event.subscriberId, event: event.event, at: min(event.timestamp, now), properties: event.properties, pending: pending)
    }

    /// The event again, at the mark's time, to feed a run.
    public var asEvent: BuzzEvent {
        BuzzEvent(event: event, subscriberId: subscriberId, properties: properties, timestamp: at)
    }

    /// One mark per subscriber and name: the latest of `marks`, pending if any of them is.
    public static func latest(_ marks: [CancelMark]) -> [CancelMark] {
        var byKey: [String: CancelMark] = [:]
        for mark in marks {
            let key = mark.subscriberId + "\u{0}" + mark.event
            byKey[key] = byKey[key].map { $0.merging(mark) } ?? mark
        }
        return byKey.keys.sorted().map { byKey[$0]! }
    }

    /// This stored mark after `newer` is recorded over it: the later event's time and
    /// properties; pending when `newer` was accepted but not handled, no longer pending when
    /// the trigger stage handled it or a later event of the name, and as it was when an
    /// earlier event was handled.
    public func merging(_ newer: CancelMark) -> CancelMark {
        var merged = at > newer.at ? self : newer
        merged.pending = newer.pending || (pending && at > newer.at)
        return merged
    }
}
