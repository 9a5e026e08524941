import BuzzKitOnAppleModel
import Foundation

extension SimulatedPhone {
    /// How many entries a phone's trace keeps (the oldest go first).
    static let traceLength = 400

    /// Notes what the SDK reported, leaving out the chatter (each queued or delivered event);
    /// after a reinstall, with the install it came from.
    func note(_ activity: ClientActivity) {
        if case .eventQueued = activity { return }
        if case .notificationOpened = activity { return }
        let install = locked { self.install }
        note((install > 1 ? "(install \(install)) " : "") + Self.described(activity))
    }

    /// An SDK report as the trace shows it.
    static func described(_ activity: ClientActivity) -> String {
        if case .eventsDelivered(let ids) = activity { return "\(ids.count) event(s) delivered" }
        return String(describing: activity)
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
