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

    override public init() { super.init() }

    init(copying other: UNNotificationContent) {
        title = other.title
        body = other.body
        sound = other.sound
        userInfo = other.userInfo
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
    public let named: String?

    init(named: String?) {
        self.named = named
        super.init()
    }

    /// The default sound.
    open class var `default`: UNNotificationSound { UNNotificationSound(named: nil) }
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
