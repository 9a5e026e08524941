// As Apple's framework, the model brings Foundation with it.
@_exported import Foundation

/// Model of `UNNotificationContent`: what a notification shows. Only the properties BuzzKit
/// sets or reads.
open class UNNotificationContent: NSObject, @unchecked Sendable {
    /// The title.
    open internal(set) var title: String = ""
    /// The body.
    open internal(set) var body: String = ""
    /// The sound; `nil` is silent.
    open internal(set) var sound: UNNotificationSound?
    /// The payload: property-list values only (Apple: "the keys and values must be of a
    /// property-list type"). A remote notification's is the whole APNs JSON.
    open internal(set) var userInfo: [AnyHashable: Any] = [:]
    /// "The notification's importance and required delivery timing" (iOS 15).
    open internal(set) var interruptionLevel: UNNotificationInterruptionLevel = .active
    /// "The identifier that groups related notifications."
    open internal(set) var threadIdentifier: String = ""
    /// "The number that your app's icon displays"; `nil` leaves the badge as it is.
    open internal(set) var badge: NSNumber?
    /// "The identifier of the app-defined category object": the buttons shown.
    open internal(set) var categoryIdentifier: String = ""

    override public init() { super.init() }

    init(copying other: UNNotificationContent) {
        title = other.title
        body = other.body
        sound = other.sound
        userInfo = other.userInfo
        interruptionLevel = other.interruptionLevel
        threadIdentifier = other.threadIdentifier
        badge = other.badge
        categoryIdentifier = other.categoryIdentifier
        super.init()
    }
}

/// Model of `UNMutableNotificationContent`: the content an app fills in for a local request.
/// iOS copies it when the request is made (`UNNotificationRequest` holds an immutable copy).
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    override open var title: String {
        get { super.title }
        set { super.title = newValue }
    }
    override open var body: String {
        get { super.body }
        set { super.body = newValue }
    }
    override open var sound: UNNotificationSound? {
        get { super.sound }
        set { super.sound = newValue }
    }
    override open var interruptionLevel: UNNotificationInterruptionLevel {
        get { super.interruptionLevel }
        set { super.interruptionLevel = newValue }
    }
    override open var threadIdentifier: String {
        get { super.threadIdentifier }
        set { super.threadIdentifier = newValue }
    }
    override open var badge: NSNumber? {
        get { super.badge }
        set { super.badge = newValue }
    }
    override open var categoryIdentifier: String {
        get { super.categoryIdentifier }
        set { super.categoryIdentifier = newValue }
    }
    override open var userInfo: [AnyHashable: Any] {
        get { super.userInfo }
        set {
            // Apple: "Any other type of object raises an exception" (NSInvalidArgumentException).
            precondition(PropertyList.isValid(newValue), "UNMutableNotificationContent.userInfo: not a property list")
            super.userInfo = newValue
        }
    }
}

/// Model of `UNNotificationSound`.
open class UNNotificationSound: NSObject, @unchecked Sendable {
    /// The name of the sound file, or `nil` for the system's default sound.
    public let modelName: String?

    init(modelName: String?) {
        self.modelName = modelName
        super.init()
    }

    /// "Creates a sound object that represents a custom sound file" in the app's bundle.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(modelName: name.rawValue)
    }

    /// The default sound.
    open class var `default`: UNNotificationSound { UNNotificationSound(modelName: nil) }
}

/// Model of `UNNotificationSoundName`: a sound file's name.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Model of `UNNotificationInterruptionLevel` (iOS 15): "the importance and delivery timing of
/// a notification".
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    /// "Added to the notification list without lighting up the screen or playing a sound."
    case passive = 0
    /// "Presented immediately, lights up the screen, and can play a sound."
    case active = 1
    /// "Presented immediately … can break through system controls such as Focus."
    case timeSensitive = 2
    /// "Presented immediately … bypasses the mute switch" (needs Apple's entitlement).
    case critical = 3
}

/// Property-list values, as `userInfo` must hold (Apple, "Property List Programming Guide":
/// strings, numbers, booleans, dates, data, arrays and dictionaries of them).
enum PropertyList {
    static func isValid(_ value: Any) -> Bool {
        switch value {
        case is String, is Bool, is Int, is Double, is Float, is Date, is Data, is NSNumber, is NSString: return true
        case let array as [Any]: return array.allSatisfy(isValid)
        case let dictionary as [AnyHashable: Any]:
            return dictionary.allSatisfy { key, value in key.base is String && isValid(value) }
        default: return false
        }
    }
}
