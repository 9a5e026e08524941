import BuzzKitOnAppleModel
import Foundation

extension SimulatedPhone {
    /// How many entries a phone's trace keeps (the oldest go first).
    static let traceLength = 600

    /// Notes what the SDK of `install` reported, leaving out the chatter (each queued event,
    /// each open: counted elsewhere).
    func note(_ activity: ClientActivity, install: Int, deleted: Bool = false) {
        if case .eventQueued = activity { return }
        if case .notificationOpened = activity { return }
        note(.activity(activity, install: install, deleted: deleted))
    }

    /// Notes something the phone or its person did.
    func note(_ what: String) { note(.text(what)) }

    /// Notes `entry` now; past ``traceLength`` entries the oldest go (a hundred at a time, so a
    /// busy phone does not shift its whole trace at every note).
    func note(_ entry: TraceEntry) {
        let now = Date()
        locked {
            traceStorage.append((now, entry))
            if traceStorage.count > Self.traceLength + 100 { traceStorage.removeFirst(traceStorage.count - Self.traceLength) }
        }
    }

    /// The trace, each entry's time given relative to `moment`; only the entries from
    /// `from` to `to` when given.
    func trace(around moment: Date, from: Date = .distantPast, to: Date = .distantFuture) -> [String] {
        locked {
            traceStorage.suffix(Self.traceLength).filter { $0.at >= from && $0.at <= to }
                .map { String(format: "%+.2f s %@", $0.at.timeIntervalSince(moment), Self.shortened($0.entry.described)) }
        }
    }

    /// An entry cut to 300 characters (a sync of 70 plans lists them all).
    static func shortened(_ what: String) -> String {
        what.count <= 300 ? what : what.prefix(300) + "… (\(what.count) characters)"
    }
}
