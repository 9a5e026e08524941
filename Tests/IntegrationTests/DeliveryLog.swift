import BuzzServer
import Foundation

/// What a subscription was handed, kept for the test to look at and settle.
final class DeliveryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var deliveries: [any BrokerDelivery] = []

    func add(_ delivery: any BrokerDelivery) { lock.withLock { deliveries.append(delivery) } }

    var all: [any BrokerDelivery] { lock.withLock { deliveries } }
}
