import BuzzKitOnAppleModel
import Foundation

/// One line of a simulated phone's trace, kept as it happened and put into words only when a
/// report prints it: the fleet notes hundreds of thousands of SDK reports in a burst, and
/// describing each as it came (`String(describing:)` reflects over the report's values) took
/// the simulator's own CPU from the phones it plays.
enum TraceEntry: Sendable {
    /// Something the phone or its person did, in words.
    case text(String)
    /// What the SDK of install `install` reported (`deleted`: the install was deleted since,
    /// and its leftover tasks count for nothing); the install is named after a reinstall.
    case activity(ClientActivity, install: Int, deleted: Bool)
    /// iOS got the app's answer to a silent push this many seconds after handing it over.
    case wakeAnswered(TimeInterval)

    /// The line as the trace shows it.
    var described: String {
        switch self {
        case .text(let text):
            return text
        case .activity(let activity, let install, let deleted):
            let said: String
            if case .eventsDelivered(let ids) = activity { said = "\(ids.count) event(s) delivered" } else { said = String(describing: activity) }
            if deleted { return "(deleted install \(install)) " + said }
            return (install > 1 ? "(install \(install)) " : "") + said
        case .wakeAnswered(let seconds):
            return String(format: "wake answered after %.2f s", seconds)
        }
    }
}
