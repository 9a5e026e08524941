import BuzzKitWire

/// Every public type an app names, reachable as `BuzzKit.X` too: an app with a `Configuration`
/// (or an `Error`, a `Client`) of its own writes `BuzzKit.Configuration`, which the module name
/// alone cannot give, since `BuzzKit` is also this enum.
extension BuzzKit {
    public typealias Configuration = BuzzKitConfiguration
    public typealias Client = BuzzKitClient
    public typealias Error = BuzzKitError
    public typealias Ports = BuzzKitPorts
    public typealias Activity = ClientActivity
    public typealias SubscriberTokenProvider = BuzzKitSubscriberTokenProvider
    public typealias OpenedNotification = BuzzKitOpenedNotification
    public typealias NotificationMessage = BuzzKitNotificationMessage
    public typealias NotificationAuthorization = BuzzKitNotificationAuthorization
    public typealias PushRegistration = BuzzKitPushRegistration
    public typealias RetryPolicy = BuzzKitRetryPolicy
    public typealias KeyValueStore = BuzzKitKeyValueStore
    public typealias FileKeyValueStore = BuzzKitFileKeyValueStore
    public typealias InMemoryKeyValueStore = BuzzKitInMemoryKeyValueStore
    public typealias DeliveredNotification = BuzzKitDeliveredNotification
    public typealias JSONValue = BuzzKitWire.JSONValue
}

// Module-level names the enum's aliases point at (a nested alias cannot name a module-level
// type that the enum shadows by the same name).
public typealias BuzzKitConfiguration = Configuration
public typealias BuzzKitSubscriberTokenProvider = SubscriberTokenProvider
public typealias BuzzKitOpenedNotification = OpenedNotification
public typealias BuzzKitNotificationMessage = NotificationMessage
public typealias BuzzKitNotificationAuthorization = NotificationAuthorization
public typealias BuzzKitPushRegistration = PushRegistration
public typealias BuzzKitRetryPolicy = RetryPolicy
public typealias BuzzKitKeyValueStore = KeyValueStore
public typealias BuzzKitFileKeyValueStore = FileKeyValueStore
public typealias BuzzKitInMemoryKeyValueStore = InMemoryKeyValueStore
public typealias BuzzKitDeliveredNotification = DeliveredNotification
