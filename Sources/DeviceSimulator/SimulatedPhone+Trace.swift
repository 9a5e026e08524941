import BuzzKitOnAppleModel
import Foundation

extension SimulatedPhone {
    /// How many entries a phone's trace keeps (the oldest go first).
    static let traceLength = 400

    /// Notes what the SDK reported, leaving out the chatter (each queued or delivered event).
    func note(_ activity: ClientActivity) {
        switch activity {
        case .eventQueued, .notificationOpened:
            return
        case .eventsDelivered(let ids):
            note("\(ids.count) event(s) delivered")
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

    /// The trace, each entry's time given relative to `moment`; only the entries from
    /// `from` to `to` when given.
    func trace(around moment: Date, from: Date = .distantPast, to: Date = .distantFuture) -> [String] {
        locked {
            traceStorage.filter { $0.at >= from && $0.at <= to }
                .map { String(format: "%+.2f s %@", $0.at.timeIntervalSince(moment), Self.shortened($0.what)) }
        }
    }

    /// An entry cut to 300 characters (a sync of 70 plans lists them all).
    static func shortened(_ what: String) -> String {
        what.count <= 300 ? what : what.prefix(300) + "… (\(what.count) characters)"
    }
}
