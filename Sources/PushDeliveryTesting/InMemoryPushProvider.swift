import BuzzCrypto
import Foundation
import PushDelivery

/// A ``PushProvider`` for other modules' unit tests: it records every push it was asked to
/// send and answers with outcomes configured per device token.
///
/// It applies the same local checks as ``APNsProvider`` (``PushNotification/localRefusal``),
/// so a payload over 4096 bytes is rejected here too, and is not recorded as sent.
///
/// ```swift
/// let push = InMemoryPushProvider()
/// push.setOutcome(.deviceUnregistered(reason: "Unregistered", since: date), forToken: deadToken)
/// let results = push.send(batch)
/// XCTAssertEqual(push.sent.count, 2)
/// ```
public final class InMemoryPushProvider: PushProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [String: PushResult.Outcome] = [:]
    private var recorded: [PushNotification] = []
    private var batches = 0

    /// Creates a provider that delivers everything until told otherwise.
    public init() {}

    /// Answers every later push to `token` (compared case-insensitively) with `outcome`.
    /// A configured `.delivered(apnsId:)` answers with exactly that id; without
    /// configuration a push is delivered with its own `apns-id` (or a new one).
    public func setOutcome(_ outcome: PushResult.Outcome, forToken token: String) {
        lock.withLock { outcomes[token.lowercased()] = outcome }
    }

    /// Forgets the outcome configured for `token`.
    public func removeOutcome(forToken token: String) {
        lock.withLock { _ = outcomes.removeValue(forKey: token.lowercased()) }
    }

    /// Every push that passed the local checks, in the order it was sent.
    public var sent: [PushNotification] {
        lock.withLock { recorded }
    }

    /// The pushes recorded from position `index` on (a reader that keeps its place).
    public func sent(from index: Int) -> [PushNotification] {
        lock.withLock { index < recorded.count ? Array(recorded[index...]) : [] }
    }

    /// How many times ``send(_:)`` was called.
    public var batchCount: Int {
        lock.withLock { batches }
    }

    /// Forgets the recorded pushes (configured outcomes stay).
    public func removeAllSent() {
        lock.withLock { recorded.removeAll() }
    }

    /// Records the batch and answers each push with its configured outcome.
    public func send(_ batch: [PushNotification]) -> [PushResult] {
        lock.withLock {
            batches += 1
            return batch.map { notification in
                if let refusal = notification.localRefusal {
                    return PushResult(outcome: refusal, apnsId: nil, status: nil, attempts: 0)
                }
                recorded.append(notification)
                let apnsId = notification.apnsId ?? RandomIdentifier.uuid()
                let outcome = outcomes[notification.deviceToken.lowercased()] ?? .delivered(apnsId: apnsId)
                return PushResult(outcome: outcome, apnsId: apnsId, status: Self.status(of: outcome), attempts: 1)
            }
        }
    }

    /// The HTTP status APNs would have answered with.
    private static func status(of outcome: PushResult.Outcome) -> Int? {
        switch outcome {
        case .delivered: return 200
        case .deviceUnregistered(let reason, _): return reason == "BadDeviceToken" ? 400 : 410
        case .rejected(let status, _), .failed(let status, _): return status
        }
    }
}
