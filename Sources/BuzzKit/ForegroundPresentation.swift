/// How a notification is presented while the app is in the foreground (a platform-neutral
/// `UNNotificationPresentationOptions`).
public struct ForegroundPresentation: Sendable, Hashable {
    /// Shown as a banner.
    public var banner: Bool
    /// Kept in the notification list.
    public var list: Bool
    /// With its sound.
    public var sound: Bool

    /// A presentation from its parts.
    public init(banner: Bool, list: Bool, sound: Bool) {
        self.banner = banner
        self.list = list
        self.sound = sound
    }
}
