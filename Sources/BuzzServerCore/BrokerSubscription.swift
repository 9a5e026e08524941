import Foundation

/// One queue's consumer, from ``Broker/subscribe(_:prefetch:deliver:)``.
public protocol BrokerSubscription: AnyObject, Sendable {
    /// Begins handing deliveries to the subscriber.
    func start()
    /// Asks the broker for no more deliveries; true once it confirmed (within `timeout`), so
    /// every delivery that will ever arrive has arrived.
    func cancel(timeout: TimeInterval) -> Bool
    /// Settles what is left (waiting at most `grace` for outstanding settlements) and closes.
    func stop(grace: TimeInterval)
    /// Deliveries handed out and not settled yet.
    var unsettledCount: Int { get }
    /// Whether the subscription holds a broker connection.
    var isConnected: Bool { get }
}
