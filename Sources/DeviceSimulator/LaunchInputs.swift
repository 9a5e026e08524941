import BuzzKitOnAppleModel
import UserNotifications

/// What one launch of a simulated app runs on: the install (its storage, token and center)
/// when iOS started the launch, and how many times the phone's app process had ended by then
/// (``SimulatedPhone/launch(_:)`` gives up its process if that moved: the app was deleted
/// while it launched).
struct LaunchInputs {
    /// The subscriber the app restores its session for.
    let owner: String
    /// The device token iOS hands this install (hex).
    let token: String
    let center: UNUserNotificationCenter
    /// The app's files and its Keychain items.
    let store: InMemoryKeyValueStore
    let keychain: InMemoryKeyValueStore
    /// Which install of the app this is (1, then one more at each reinstall).
    let install: Int
    let processEnds: Int
}
