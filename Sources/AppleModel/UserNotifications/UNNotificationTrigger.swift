import Foundation

/// Model of `UNNotificationTrigger`, the base of the trigger classes.
open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    /// Whether it fires again.
    public let repeats: Bool

    init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }
}

/// Model of `UNCalendarNotificationTrigger`: fires when the date components match.
///
/// Apple: "If you don't specify a time zone in the date components, the trigger fires at the
/// specified time in the user's current time zone" (a floating wall clock: the same components
/// fire at a different instant after the person flies). The model decides the instant with
/// Foundation's Gregorian `Calendar` in the phone's zone at the time of asking, by its own
/// rule and not the SDK's code: `nextDate(after:matching:matchingPolicy:repeatedTimePolicy:)`
/// with `.nextTimePreservingSmallerComponents` (a wall clock inside a DST gap moves forward
/// by the gap: 02:30 → 03:30) and `.first` (inside a fold, the first occurrence). Apple does
/// not document the policy its trigger uses in a gap or a fold; these are Foundation's
/// documented policies that match BuzzKit's contract (DESIGN §3), so a disagreement between
/// the SDK's arithmetic and iOS's calendar shows as a notification at the wrong instant.
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components to match.
    public let dateComponents: DateComponents
    /// The zone the model evaluates the components in when they name none: set by the
    /// center to the phone's current zone before each evaluation.
    var evaluationZone: @Sendable () -> TimeZone = { TimeZone.current }
    /// The instant the trigger was handed to the center: the first match after it fires.
    var evaluationStart: Date?

    /// A trigger for `dateComponents`.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    private let cacheLock = NSLock()
    private var cached: (zone: String, date: Date?)?

    /// The next instant the components match after `date`, in the components' zone or the
    /// phone's. A one-shot trigger naming every component from the year to the second matches
    /// one instant per zone: it is worked out once per zone (the center asks several times a
    /// second, and a crowded phone holds 64).
    func nextDate(after date: Date) -> Date? {
        let zone = dateComponents.timeZone ?? evaluationZone()
        guard !repeats, Self.namesOneInstant(dateComponents) else { return Self.match(dateComponents, in: zone, after: date) }
        cacheLock.lock()
        let known = cached?.zone == zone.identifier ? cached : nil
        cacheLock.unlock()
        let instant: Date?
        if let known {
            instant = known.date
        } else {
            instant = Self.match(dateComponents, in: zone, after: Date(timeIntervalSince1970: 0))
            cacheLock.lock()
            cached = (zone.identifier, instant)
            cacheLock.unlock()
        }
        return instant.flatMap { $0 > date ? $0 : nil }
    }

    private static func namesOneInstant(_ components: DateComponents) -> Bool {
        components.year != nil && components.month != nil && components.day != nil && components.hour != nil
            && components.minute != nil && components.second != nil
    }

    private static func match(_ components: DateComponents, in zone: TimeZone, after date: Date) -> Date? {
        var calendar = components.calendar ?? Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var matching = components
        matching.calendar = nil
        matching.timeZone = nil
        return calendar.nextDate(after: date, matching: matching, matchingPolicy: .nextTimePreservingSmallerComponents,
                                 repeatedTimePolicy: .first, direction: .forward)
    }

    /// Apple: "The next date at which the trigger conditions are met", or `nil` when they will
    /// not be met again.
    open func nextTriggerDate() -> Date? {
        nextDate(after: evaluationStart ?? Date())
    }
}

/// Model of `UNTimeIntervalNotificationTrigger`: fires a number of seconds after it was added.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The seconds from the add.
    public let timeInterval: TimeInterval
    var addedAt: Date?

    /// A trigger `timeInterval` seconds after the add (Apple: at least 60 when repeating).
    public init(timeInterval: TimeInterval, repeats: Bool) {
        precondition(timeInterval > 0, "UNTimeIntervalNotificationTrigger: time interval must be greater than 0")
        precondition(!repeats || timeInterval >= 60, "UNTimeIntervalNotificationTrigger: time interval must be at least 60 if repeating")
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// The instant it fires.
    open func nextTriggerDate() -> Date? {
        (addedAt ?? Date()).addingTimeInterval(timeInterval)
    }
}

/// Model of `UNPushNotificationTrigger`: the trigger of a notification APNs delivered. Apps
/// never create one.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    init() { super.init(repeats: false) }
}
