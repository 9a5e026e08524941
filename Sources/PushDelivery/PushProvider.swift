import Foundation

/// The pipeline's port for remote pushes (Apple Push Notification service).
///
/// The pipeline's plan, cancel and fallback sends go through one `PushProvider`. Implementations:
/// - ``APNsProvider``: the real one, HTTP/2 over TLS to Apple (or to a stand-in) through libcurl.
/// - ``InMemoryPushProvider``: records what it was asked to send, for other modules' unit tests.
///
/// ## Contract
/// - ``send(_:)`` is **blocking** and **thread-safe**: call it from worker threads (never from
///   the Swift concurrency pool, which has only two threads here). Any number of threads may
///   call it at once; their pushes share the provider's connections.
/// - The pushes of one batch run concurrently (multiplexed HTTP/2 streams), not one after the
///   other, so a worker sends a plan to all of a subscriber's devices, or a fallback to many
///   subscribers, in one call.
/// - It never throws and never drops a push: the answer has exactly one ``PushResult`` per
///   notification, in the batch's order, after retries are over. Each result carries what a
///   deliveries row needs (outcome, HTTP status, attempts, `apns-id`).
/// - Retries are bounded and happen inside the call: a `.failed` result means the provider
///   gave up for now; the caller may try again later (for example on the next redelivery).
/// - A `.deviceUnregistered` result means the device token is dead: mark the device inactive
///   (at `since`, or now when it is nil) and never send to it again.
/// - A `.rejected` result is permanent for that notification (for example a payload over
///   4096 bytes, refused before anything is sent): record the error, do not retry.
public protocol PushProvider: Sendable {
    /// Sends every notification of `batch` concurrently and waits until each one has a final
    /// result.
    ///
    /// - Parameter batch: the notifications; an empty batch returns at once.
    /// - Returns: one result per notification, in the same order as `batch`.
    func send(_ batch: [PushNotification]) -> [PushResult]
}
