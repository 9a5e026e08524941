import Foundation

/// Model of `UNNotificationActionOptions`.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// "The action can be performed only on an unlocked device."
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    /// "The action performs a destructive task."
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    /// "The action causes the app to launch in the foreground."
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// Model of `UNNotificationAction`: a button iOS shows under a notification whose category
/// names it ("An action … that your app performs in response to a delivered notification").
open class UNNotificationAction: NSObject, @unchecked Sendable {
    /// "The unique string that your app uses to identify the action."
    public let identifier: String
    /// "The localized string to use as the title of the action."
    public let title: String
    /// "The behaviors associated with the action."
    public let options: UNNotificationActionOptions

    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        super.init()
    }
}

/// Model of `UNNotificationCategoryOptions` (none of its options matter to the model).
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// "Send dismiss actions to the delegate."
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
}

/// Model of `UNNotificationCategory`: "A type of notification your app supports and the custom
/// actions that the system displays." iOS shows a notification's buttons only when its
/// `categoryIdentifier` names a category the app registered (`setNotificationCategories(_:)`),
/// and each category is looked up by its identifier.
open class UNNotificationCategory: NSObject, @unchecked Sendable {
    /// "The unique string assigned to the category."
    public let identifier: String
    /// "The actions to display when the system delivers notifications of this type."
    public let actions: [UNNotificationAction]
    /// Siri intents (not modelled).
    public let intentIdentifiers: [String]
    /// "Options for how to handle notifications of this type."
    public let options: UNNotificationCategoryOptions

    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
                options: UNNotificationCategoryOptions = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        super.init()
    }

    /// Categories are told apart by identifier (a `Set` of them holds one per identifier).
    override open func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationCategory)?.identifier == identifier
    }

    override open var hash: Int { identifier.hashValue }
}
