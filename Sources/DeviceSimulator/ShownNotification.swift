import BuzzKitOnAppleModel
import Foundation

/// A notification a simulated phone showed, with whose phone it was at that moment.
struct ShownNotification: Sendable {
    var notification: DeliveredNotification
    /// The subscriber signed in on the phone when it was shown.
    var owner: String
}
