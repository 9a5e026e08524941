import BuzzKitWire

/// Tells BuzzKit's notifications from the app's own, by their user info: a local
/// notification BuzzKit scheduled and a BuzzKit alert push both carry the message (`bk` with
/// a `messageId`); a silent plan or cancel push carries `bk.local` or `bk.cancel`.
public enum BuzzKitNotification {
    /// Whether the user info belongs to a BuzzKit notification or push.
    public static func owns(userInfo: [String: JSONValue]) -> Bool {
        NotificationMessage(userInfo: userInfo) != nil || userInfo["bk.local"] != nil || userInfo["bk.cancel"] != nil
    }

    /// How a notification about to be shown while the app is in the foreground is presented:
    /// BuzzKit's own as a banner, in the list, with sound (`nil` for the app's own, which go
    /// to the app's delegate, or are not shown when it has none, as iOS does by default).
    public static func foregroundPresentation(userInfo: [String: JSONValue]) -> ForegroundPresentation? {
        owns(userInfo: userInfo) ? ForegroundPresentation(banner: true, list: true, sound: true) : nil
    }
}
