import BuzzKit
import Foundation

extension SimulatedPhone {
    /// How many entries a phone's trace keeps (the oldest go first).
    static let traceLength = 400

    /// Notes what the SDK reported, leaving out the chatter (each queued or delivered event).
    func note(_ activity: ClientActivity) {
        switch activity {
        case .eventQueued, .eventsDelivered, .notificationOpened:
            return
        default:
            note(String(describing: activity))
        }
    }

    /// Notes something the phone or its person did.
    func note(_ what: String) {
        locked {
            traceStorage.append((Date(), what))
            if traceStorage.count > Self.traceLength { traceStorage.removeFirst(traceStorage.count - Self.traceLength) }
        }
    }

    /// The trace, each entry's time given relative to `moment`.
    func trace(around moment: Date) -> [String] {
        locked { traceStorage.map { String(format: "%+.2f s %@", $0.at.timeIntervalSince(moment), $0.what) } }
    }
}
