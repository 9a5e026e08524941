import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Handles a remote notification as the app receives it (`[AnyHashable: Any]`), for apps
    /// that forward pushes themselves. Returns after the acknowledgment's flush attempt.
    nonisolated(nonsending) public func didReceiveRemoteNotification(userInfo: [AnyHashable: Any]) async -> PushOutcome {
        let receivedAt = clock.now
        let payload: [String: JSONValue]
        do {
            payload = try JSONValue.members(userInfo: userInfo)
        } catch {
            await reportError(error)
            return .failed
        }
        return await handleRemoteNotification(payload: payload, receivedAt: receivedAt)
    }

    /// Handles a remote notification given as its JSON body (what APNs carries).
    @discardableResult
    nonisolated(nonsending) public func didReceiveRemoteNotification(payload: Data) async -> PushOutcome {
        let receivedAt = clock.now
        let members: [String: JSONValue]
        do {
            members = try JSONDecoder().decode([String: JSONValue].self, from: payload)
        } catch {
            await reportError(BuzzKitError(.invalidPayload, context: "remote notification", message: "the body is not a JSON object: \(error)"))
            return .failed
        }
        return await handleRemoteNotification(payload: members, receivedAt: receivedAt)
    }

    /// Handles a remote notification:
    /// - `bk.local`: schedules the plan and acknowledges it (``ClientActivity`` tells why not);
    /// - `bk.cancel`: removes pending notifications whose id equals the cancel id or starts
    ///   with it (a plain string prefix: `run1` also matches `run10/…`);
    /// - an alert with `bk.localId` (a fallback the app gets to see): removes the pending local
    ///   copy, so it is not shown a second time; in the foreground it returns without waiting
    ///   for the wake's requests, since iOS presents the alert only once the app answers;
    /// - anything else: `.noData`, at once.
    ///
    /// A BuzzKit push is a wake: the SDK also retries a pending logout, sends what is queued
    /// and syncs with the server's plan list. It answers within
    /// ``Configuration/backgroundBudget`` of the push's arrival whatever the network, the
    /// server or its own queue of state changes does (``WakeDeadline``): a push it could not
    /// apply by then is persisted and applied at the next entry point, and what did not get
    /// through stays persisted for the next wake. Outside the foreground it then holds back
    /// the plans whose acknowledgment did not reach the server (``PlanRecord/State/held``),
    /// since iOS suspends the app after the answer.
    ///
    /// The budget counts from `receivedAt`, when iOS handed the push over (the Apple layer
    /// passes it; `nil`: when this is called, read before waiting for the SDK's other work):
    /// time spent launching, waiting for `configure` or for the SDK's actor is part of it.
    @discardableResult
    nonisolated(nonsending) public func handleRemoteNotification(payload: [String: JSONValue], receivedAt: Date? = nil) async -> PushOutcome {
        let now = clock.now
        return await handle(payload, receivedAt: min(receivedAt ?? now, now))
    }

    private func handle(_ payload: [String: JSONValue], receivedAt: Date) async -> PushOutcome {
        let wake = wakeDeadline(began: receivedAt, startedAt: clock.now)
        let outcome: PushOutcome
        let push = IncomingPush(payload: payload)
        switch push {
        case .unrelated:
            return .noData
        case .malformed(let error):
            report(.error(error))
            return .failed
        default:
            // A wake that cannot read the state changes nothing: what it would schedule or
            // remove could not be saved, and the next sync repairs it.
            guard readStateIfUnreadable() else { return .noData }
            wakeBegan(wake)
        }
        switch push {
        case .unrelated, .malformed:
            return .noData
        case .plan(let plan):
            outcome = await withGate(until: wake.workUntil) { await scheduleFromPush(plan) } ?? deferPush(payload)
        case .cancel(let id):
            outcome = await withGate(until: wake.workUntil, urgent: true) { await applyCancelPush(id) } ?? deferPush(payload)
        case .alert(let message):
            outcome = await withGate(until: wake.workUntil, urgent: true) { await applyFallbackArrival(message) } ?? deferPush(payload)
            // On screen, iOS shows the alert when this returns (the Apple layer's `willPresent`
            // waits for it): it must not wait for the network. The app is running, so the
            // wake's requests go on by themselves.
            if inForeground {
                await beginWake(until: wake.workUntil)
                activeWakes -= 1
                return outcome
            }
        }
        await beginWake(until: wake.workUntil)
        await endWake(wake)
        return outcome
    }

    /// Handles a tap on a notification, given the user info as the app receives it.
    nonisolated(nonsending) public func didOpenNotification(userInfo: [AnyHashable: Any]) async {
        do {
            await handleNotificationOpen(userInfo: try JSONValue.members(userInfo: userInfo))
        } catch {
            await reportError(error)
        }
    }

    /// Handles a tap on a notification the device showed (local or remote).
    public func didOpen(_ notification: DeliveredNotification) async {
        await handleNotificationOpen(userInfo: notification.userInfo)
    }

    /// Handles a tap: tracks `$push.opened` with the `messageId` (local and remote alike),
    /// then hands the notification to the open handler (deep-link routing). Not a BuzzKit
    /// notification: nothing happens.
    public func handleNotificationOpen(userInfo: [String: JSONValue]) async {
        guard let opened = OpenedNotification(userInfo: userInfo) else { return }
        await withGate {
            if let event = makeEvent(BuzzEvent.pushOpened, properties: ["messageId": .string(opened.message.messageId)]) {
                enqueue(event, urgent: false)
            }
            report(.notificationOpened(messageId: opened.message.messageId, deepLink: opened.deepLink, origin: opened.origin))
        }
        if let openHandler {
            await openHandler(opened)
        } else {
            // A tap that launched the app can arrive before the app set its handler: kept for it.
            unhandledOpens.append(opened)
        }
        await tick()
    }

    /// Takes a device token from the platform (automatic push handling).
    public func handleDeviceToken(_ hexToken: String) async {
        do {
            try await setDeviceToken(hexToken)
        } catch {
            report(.error(error as? BuzzKitError ?? BuzzKitError(.invalidConfiguration, context: "device token", message: "\(error)")))
        }
    }

    func reportError(_ error: any Error) {
        report(.error(error as? BuzzKitError ?? BuzzKitError(.invalidPayload, context: "remote notification", message: "\(error)")))
    }
}
