import APNsStandIn
import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation

extension SimulatedPhone {
    /// A push APNs accepted for this phone: delivered now, or kept/dropped by APNs while the
    /// phone is offline.
    ///
    /// An online phone receives it when APNs accepted it (the stand-in's `receivedAt`): the
    /// phone's own handling here can start later when the simulator is busy with thousands of
    /// other phones, and a real iPhone shows an alert as it arrives, not when this process
    /// gets to it. The wait is kept as ``alertHandOverDelays`` for the report.
    func deliver(_ push: RecordedPush) async {
        guard let now = mailbox.accept(push) else { return }
        await handOver(now.payload, silent: now.isSilent, receivedAt: now.receivedAt)
    }

    /// A push reaching the phone (at `receivedAt`, by the wall clock; now if nil), as iOS hands it on.
    func handOver(_ payload: Data, silent: Bool, receivedAt: Date? = nil) async {
        guard case .object(let object)? = try? JSONParser.parse(payload) else { return }
        note((silent ? "silent push " : "alert ") + (object.keys.filter { $0.hasPrefix("bk.") }.sorted().joined(separator: ",")))
        if !silent {
            await receiveAlert(object, receivedAt: receivedAt)
            return
        }
        if case .object(let local)? = object["bk.local"] {
            countPlan(local["id"]?.stringValue ?? "")
            if behaviour == .offline {
                // The phone loses its network as the plan arrives.
                goOffline()
                let seconds = configuration.offlineSeconds
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                    await self.goOnline()
                }
            }
        }
        await receiveSilent(object)
    }

    /// An alert: iOS shows it whatever the app's state (if the person allowed notifications);
    /// an app on screen is asked first (`willPresent`, BuzzKit's notification delegate, which
    /// hands a fallback to the SDK before it is shown). The request's identifier is the
    /// server's `apns-collapse-id` (the window's for a fallback, the message's otherwise).
    func receiveAlert(_ payload: [String: JSONValue], receivedAt: Date? = nil) async {
        guard case .object(let aps)? = payload["aps"], let alert = aps["alert"] else { return }
        let message = NotificationMessage(userInfo: payload)
        let identifier = message.map { message in message.localId.map(LocalPlan.fallbackName) ?? message.messageId }
            ?? UUID().uuidString.lowercased()
        // The arrival on the phone's clock: its clock now, less how long ago the push arrived.
        let waited = receivedAt.map { max(0, Date().timeIntervalSince($0)) } ?? 0
        locked { handOverDelays.append(waited) }
        await center.modelDeliverRemote(identifier: identifier, title: alert["title"]?.stringValue ?? "",
                                        body: alert["body"]?.stringValue ?? alert.stringValue ?? "",
                                        userInfo: JSONValue.foundationObject(payload) as [AnyHashable: Any], date: systemClock.now.addingTimeInterval(-waited))
    }

    /// A silent push: dropped for a force-quit app, kept for the app's next run past the
    /// hourly budget or in Low Power Mode; otherwise the app is woken (launched if not running)
    /// in the background, handles it, and is suspended again once it answered.
    func receiveSilent(_ payload: [String: JSONValue]) async {
        let decision = locked { () -> SilentPushPolicy.Decision? in forceQuit ? nil : policy.decide(now: Date(), inForeground: state == .foreground) }
        note("iOS: silent push " + (decision?.word ?? "dropped (force-quit)"))
        guard let decision else { return }
        guard decision == .deliver else {
            // iOS keeps the newest background notification it did not deliver and hands it
            // over when the app next runs (Apple, "Pushing background updates to your App":
            // the system may throttle background notifications; an earlier one is replaced by
            // a newer). With Background App Refresh off, that is every one until the app runs.
            locked {
                throttled += 1
                heldThrottledPush = payload
            }
            return
        }
        let allowed = locked { () -> Bool in
            guard !forceQuit else { return false }
            wakes += 1
            return true
        }
        guard allowed else { return }
        // iOS hands the push to the app delegate (launching the app first if needed), whose
        // callback BuzzKit's hook answers; iOS stops waiting after 30 s.
        let started = Date()
        guard let process = await backgroundProcess(orNote: "wake ended with the app's process (before its launch finished)") else { return }
        note(String(format: "iOS: the push goes to the app's delegate (%.2f s after it was handed over)", Date().timeIntervalSince(started)))
        let answer = await process.application.modelDeliverSilentPush(userInfo: JSONValue.foundationObject(payload) as [AnyHashable: Any])
        let took = Date().timeIntervalSince(started)
        let ended = await process.application.modelTerminated
        note(answer != nil ? .wakeAnswered(took) : .text(ended ? "wake ended with the app's process" : "wake cut off by iOS after 30 s"))
        locked {
            if answer != nil { wakeTimes.append((began: started, seconds: took)) }
            if answer == nil && !ended { overruns += 1 }
        }
        // iOS suspends the app once no silent push and no background task holds it.
        await process.application.modelWhenIdle()
        locked { wakes -= 1 }
        suspendIfIdle()
    }

    /// The app runs in the foreground: iOS hands over the silent push it kept back.
    func deliverHeldThrottledPush() {
        guard let payload = locked({ () -> [String: JSONValue]? in
            defer { heldThrottledPush = nil }
            if heldThrottledPush != nil { throttledDelivered += 1 }
            return heldThrottledPush
        }) else { return }
        note("iOS: the throttled silent push, handed over as the app runs")
        Task { await self.receiveSilent(payload) }
    }

    /// The person taps the notification `id` shown on the phone: iOS brings the app to the
    /// screen (launching it if its process had ended) and hands the response to the
    /// notification delegate, BuzzKit's. The person leaves a second later.
    func tap(_ id: String) async {
        note("person taps \(id)")
        locked { taps += 1 }
        let process = await foregroundProcess()
        await process.application.modelBecomeActive()
        deliverHeldThrottledPush()
        if await !center.modelRespond(toNotificationWithIdentifier: id) {
            note("the tap on \(id) was not answered (no such notification delivered, or the delegate kept iOS waiting 30 s)")
        }
        try? await Task.sleep(nanoseconds: 1_000_000_000)
        await leave()
    }

    /// Whether a button's `$push.action` is still queued in the SDK (after its wake: the API
    /// did not take it in time, so it goes at the app's next run).
    func buttonEventsWaiting() async -> Bool {
        guard let client else { return false }
        return await client.queuedEvents.contains { $0.event == BuzzEvent.pushAction }
    }

    /// How many of the app's requests suspensions froze mid-flight so far (this process).
    var requestsCutBySuspension: Int { locked { process?.gate }?.requestsCut ?? 0 }

    /// The person chooses the button `actionId` of the notification `id` on the lock screen:
    /// iOS runs the app in the background for it (launching it if it is not running; Apple,
    /// `UNNotificationActionOptions`: only a `.foreground` action brings the app to the screen)
    /// and hands the response to the notification delegate; the app is suspended again once the
    /// delegate called the completion handler. Returns false, choosing nothing, when iOS shows
    /// no such button because it cannot: a fallback for a plan that never reached this phone
    /// carries a category no plan or sync registered here (Apple: only a registered category's
    /// actions are shown), so the person sees a notification without buttons.
    @discardableResult
    func choose(_ actionId: String, on id: String) async -> Bool {
        if let localId = LocalPlan.localId(ofFallback: id), !locked({ planIds.contains(localId) }),
           !(await showsButton(actionId, on: id)) {
            note("no \(actionId) button under \(id): its plan never reached this phone, so nothing registered its buttons here")
            return false
        }
        note("person chooses \(actionId) on \(id)")
        locked {
            actionsChosen += 1
            wakes += 1
        }
        guard let process = await backgroundProcess(orNote: "the button \(actionId) on \(id) went with the app's process (it ended before its launch finished)")
        else { return true }
        if await !center.modelRespond(toNotificationWithIdentifier: id, actionIdentifier: actionId) {
            note("the button \(actionId) on \(id) was not answered (not shown: its category is not registered, or the delegate kept iOS waiting)")
        }
        await process.application.modelWhenIdle()
        locked { wakes -= 1 }
        suspendIfIdle()
        return true
    }

    /// Whether iOS shows the button `actionId` under the delivered notification `id`.
    private func showsButton(_ actionId: String, on id: String) async -> Bool {
        guard let notification = await center.deliveredNotifications().last(where: { $0.request.identifier == id }) else { return false }
        return center.modelActions(forCategory: notification.request.content.categoryIdentifier).contains { $0.identifier == actionId }
    }
}
