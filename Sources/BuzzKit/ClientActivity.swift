import BuzzKitWire
import Foundation

/// Everything an SDK instance does that an observer may want to count: the device
/// simulator's view into a phone. Reported synchronously from inside the client, in order.
public enum ClientActivity: Sendable, Hashable {
    /// A plan became a pending request and its acknowledgment was queued.
    case planScheduled(localId: String, messageId: String, fireInstant: Date)
    /// The same plan arrived again while known; nothing changed and no second
    /// acknowledgment was sent.
    case planDuplicate(localId: String, messageId: String)
    /// A plan was not scheduled and not acknowledged.
    case planRejected(localId: String, messageId: String, reason: RejectionReason)
    /// A sooner plan pushed this one out of the pending limit. When `parked`, its
    /// acknowledgment had reached the server and it waits for a free slot; otherwise its
    /// acknowledgment was taken back out of the queue, so the server's fallback covers it.
    case planEvicted(localId: String, messageId: String, parked: Bool)
    /// A parked plan got a pending slot again (and was acknowledged again if it had been
    /// released).
    case planRestored(localId: String, messageId: String)
    /// The phone let go of a plan it had acknowledged and told the server
    /// (`$local.released`), so the server's fallback covers it unless it is put back.
    case planReleased(localId: String, messageId: String)
    /// An acknowledged plan will not be shown by this device: a documented miss.
    case planLost(localId: String, messageId: String, reason: LossReason)
    /// A plan whose acknowledgment could not be confirmed before its deadline was removed
    /// (and its acknowledgment taken out of the queue), so only the server's fallback shows
    /// it. `acknowledgmentMayHaveArrived` is true when a send may have reached the server
    /// (then this is a miss, like ``planLost(localId:messageId:reason:)``).
    case planWithdrawn(localId: String, messageId: String, acknowledgmentMayHaveArrived: Bool)
    /// A plan's acknowledgment was still on its way at its last call, so it was taken out of
    /// the notification center until the server answers (``PlanRecord/State/awaitingAnswer``).
    case planAwaitingAnswer(localId: String, messageId: String)
    /// The server counted the acknowledgment of a plan taken out at its last call: it is
    /// shown now, `delay` seconds after its moment (0 when the answer came before it).
    case planShownLate(localId: String, messageId: String, delay: TimeInterval)
    /// The server answered that the plan's acknowledgment came after its fallback was decided
    /// (`"late"`): the phone's copy is withdrawn, the fallback is the one shown.
    /// `alreadyShown` when the local notification had fired before the answer came (shown
    /// twice: the answer took longer than ``BuzzKitClient/lastCall`` plus the server's decision).
    case acknowledgmentLate(localId: String, messageId: String, alreadyShown: Bool)
    /// Pending notifications (and parked plans) were removed.
    case notificationsCancelled(localIds: [String], trigger: CancelTrigger)
    /// A notification was opened; `$push.opened` was queued.
    case notificationOpened(messageId: String, deepLink: String?, origin: DeliveredNotification.Origin)
    /// The person chose a notification's button (`$push.action` was queued, and the button's
    /// event); `snoozedUntil` when it was a snooze that scheduled the notification again.
    case notificationAction(messageId: String, actionId: String, event: String?, snoozedUntil: Date?)
    /// An event was queued.
    case eventQueued(name: String, eventId: String)
    /// The server accepted a batch.
    case eventsDelivered(eventIds: [String])
    /// Events were dropped: refused by the server as invalid, or pushed out of a full queue.
    case eventsDropped(eventIds: [String], error: BuzzKitError)
    /// A flush failed; the next attempt waits until `retryAt` (backoff).
    case flushFailed(error: BuzzKitError, retryAt: Date)
    /// The device registration was accepted.
    case deviceRegistered(PushRegistration)
    /// The device registration failed; it is retried at `retryAt` (`nil`: not retried).
    case registrationFailed(error: BuzzKitError, retryAt: Date?)
    /// The notification permission read from the platform changed (it is registered with the
    /// device).
    case authorizationChanged(NotificationAuthorization)
    /// The plan list was reconciled with the server's (`GET /v1/subscribers/{id}/plans`):
    /// `added` plans were missing here, `removed` ones are no longer live on the server.
    case plansSynced(added: [String], removed: [String])
    /// A subscriber signed in.
    case signedIn(subscriberId: String)
    /// A subscriber signed out: their notifications, registry and queued events are gone
    /// from the phone; `unregistered` tells whether the server already dropped the device.
    case signedOut(subscriberId: String, unregistered: Bool)
    /// Plans whose acknowledgment had not reached the server were taken out of the
    /// notification center before the app was suspended (the server's fallback covers them
    /// unless the acknowledgment gets through at a later wake, which puts them back).
    case plansHeld(localIds: [String])
    /// A wake had to answer iOS before it could apply its push (state changes queued ahead of
    /// it kept the SDK busy): the push is persisted and applied at the next entry point.
    case pushDeferred
    /// Something failed that has no better place (storage, malformed payload).
    case error(BuzzKitError)

    /// Why a received plan was not scheduled (and therefore not acknowledged, so the server's
    /// fallback covers it).
    public enum RejectionReason: String, Sendable, Hashable, Codable {
        /// Its `fireAt` names a moment that has passed in the device's zone.
        case pastFireTime
        /// It arrived within ``Configuration/acknowledgmentDeadline`` of its moment: an
        /// acknowledgment sent now might reach the server after the moment, when the fallback
        /// is already out, and the person would see it twice.
        case insideAcknowledgmentDeadline
        /// The pending limit is full of sooner notifications.
        case noCapacity
        /// It was cancelled on this device before it arrived (a cancel event or `bk.cancel`).
        case alreadyCancelled
        /// It is malformed (invalid `fireAt`, empty id).
        case invalid
        /// The notification center refused it.
        case notificationCenterFailed
        /// The person denied notification permission: it could not be shown here, so it is not
        /// acknowledged and the server's fallback goes to the subscriber's other devices.
        case notAuthorized
        /// Nobody is signed in, so nothing can be acknowledged.
        case signedOut
        /// Someone else signed out on this phone and the server has not yet confirmed the
        /// device for the person signed in now, so the plan may be the previous person's. The
        /// sync after the confirmation brings the new person's plans.
        case deviceNotConfirmed
    }

    /// Why an acknowledged plan will not be shown by this device: the documented misses (the
    /// server saw the acknowledgment, so it sends no fallback).
    public enum LossReason: String, Sendable, Hashable, Codable {
        /// A sooner plan pushed it out of the 64 pending notifications after it was acknowledged,
        /// and no slot freed up before it was due.
        case evictedAfterAcknowledgment
        /// Its pending request disappeared before it was due, removed by something other than
        /// the SDK (the app, the user, or the system's own limit).
        case removedOutsideSDK
        /// Taken out at its last call with its acknowledgment on its way, and no answer came
        /// before the notification stopped being worth showing (its `expiresAt`, else an hour
        /// after its moment): the server may have counted it.
        case noAnswerBeforeExpiry
        /// Its acknowledgment counted, then the notification center refused to show it.
        case notificationCenterFailed
    }

    /// What removed pending BuzzKit notifications.
    public enum CancelTrigger: Sendable, Hashable {
        /// A tracked event whose name was registered by the plans' `cancelOn`.
        case event(String)
        /// A `bk.cancel` push with this id (exact or prefix).
        case cancelPush(String)
        /// The fallback alert for this local id reached the app, so the local copy would have
        /// been a second one.
        case fallbackArrived(String)
        /// The server answered this plan's acknowledgment: its run was cancelled (the cancel
        /// push had not reached the phone; APNs may have kept an older push instead).
        case runCancelled(String)
    }
}
