import Foundation

/// How a notification presents itself (DESIGN §4c "Presentation"), the same on the local
/// notification and on its fallback: interruption level, sound, thread, badge, and the
/// category naming its buttons.
///
/// In `bk.local` the members are `"interruptionLevel"`, `"sound"`, `"threadId"`, `"badge"` and
/// `"category"`; in an alert's `aps`, APNs' `"interruption-level"`, `"sound"`, `"thread-id"`,
/// `"badge"` and `"category"`. A member at its default (`active`, sound `"default"`) is left
/// out of `bk.local`; `"sound": null` there means no sound (an alert then has no `sound`).
public struct NotificationPresentation: Sendable, Hashable, Codable {
    /// `UNNotificationInterruptionLevel`, as a send names it.
    public enum InterruptionLevel: String, Sendable, Hashable, CaseIterable, Codable {
        /// Added to the list without lighting the screen or a sound.
        case passive
        /// The usual: sound and banner (the default).
        case active
        /// Breaks through Focus and the Scheduled Summary (needs the app's Time Sensitive
        /// Notifications entitlement).
        case timeSensitive

        /// APNs' spelling in `aps.interruption-level`.
        public var apnsValue: String {
            switch self {
            case .passive: return "passive"
            case .active: return "active"
            case .timeSensitive: return "time-sensitive"
            }
        }

        /// The level from APNs' spelling.
        public init?(apnsValue: String) {
            guard let level = Self.allCases.first(where: { $0.apnsValue == apnsValue }) else { return nil }
            self = level
        }
    }

    /// The interruption level (default `active`).
    public var interruptionLevel: InterruptionLevel
    /// `"default"`, a sound file bundled with the app, or `nil` for none.
    public var sound: String?
    /// Groups notifications in Notification Center (`threadIdentifier`, `thread-id`).
    public var threadId: String?
    /// The app icon's badge number to set (`nil`: leave it).
    public var badge: Int?
    /// The category (`bk.<hash>`) naming the buttons; `nil` when the send has none.
    public var category: String?

    /// The default sound's name.
    public static let defaultSound = "default"

    public init(interruptionLevel: InterruptionLevel = .active, sound: String? = NotificationPresentation.defaultSound,
                threadId: String? = nil, badge: Int? = nil, category: String? = nil) {
        self.interruptionLevel = interruptionLevel
        self.sound = sound
        self.threadId = threadId
        self.badge = badge
        self.category = category
    }

    /// The presentation of a notification that says nothing about it.
    public static let standard = NotificationPresentation()

    /// Reads the `bk.local` members (absent ones at their defaults).
    init(planFields fields: JSONFields) throws {
        let level = try fields.optionalString("interruptionLevel").map { text -> InterruptionLevel in
            guard let level = InterruptionLevel(rawValue: text) else {
                throw JSONFields.Failure(path: fields.at("interruptionLevel"), reason: "expected passive, active or timeSensitive, got \(text)")
            }
            return level
        }
        let sound: String?
        switch fields.members["sound"] {
        case nil: sound = Self.defaultSound
        case .some(.null): sound = nil
        default: sound = try fields.string("sound")
        }
        self.init(interruptionLevel: level ?? .active, sound: sound, threadId: try fields.optionalString("threadId"),
                  badge: try fields.optionalInt("badge"), category: try fields.optionalString("category"))
    }

    /// Writes the `bk.local` members that are not at their defaults.
    func writePlanMembers(to writer: inout JSONWriter) {
        if interruptionLevel != .active { writer.member("interruptionLevel", interruptionLevel.rawValue) }
        if sound != Self.defaultSound { writer.member("sound", sound) }
        if let threadId { writer.member("threadId", threadId) }
        if let badge { writer.member("badge", badge) }
        if let category { writer.member("category", category) }
    }

    /// Writes the `aps` members after `alert`: `sound` when there is one, the others when set
    /// (`interruption-level` when not `active`, APNs' default).
    func writeAPSMembers(to writer: inout JSONWriter) {
        if let sound { writer.member("sound", sound) }
        if interruptionLevel != .active { writer.member("interruption-level", interruptionLevel.apnsValue) }
        if let threadId { writer.member("thread-id", threadId) }
        if let badge { writer.member("badge", badge) }
        if let category { writer.member("category", category) }
    }
}
