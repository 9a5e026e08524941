import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Registers the categories of `plans` (and `more`, from sync's answer) that the
    /// notification center does not have: iOS shows a notification's buttons only when its
    /// category is registered, and the app may have replaced the set since (its own
    /// `setNotificationCategories`). Remembered, so a button chosen on a fallback whose plan
    /// never reached the phone is understood too.
    func registerCategories(of plans: [LocalPlan], _ more: [NotificationCategory] = []) async {
        let wanted = plans.compactMap(\.notificationCategory) + more
        guard !wanted.isEmpty else { return }
        var changed = false
        for category in wanted where knownCategories[category.id] != category {
            knownCategories[category.id] = category
            changed = true
        }
        if changed { save(Array(knownCategories.values).sorted { $0.id < $1.id }, StorageKey.categories) }
        let registered = await center.registeredCategoryIds()
        var missing: [String: NotificationCategory] = [:]
        for category in wanted where !registered.contains(category.id) { missing[category.id] = category }
        guard !missing.isEmpty else { return }
        await center.registerCategories(missing.values.sorted { $0.id < $1.id })
    }

    /// The person chose a button of a BuzzKit notification (`request` is the notification as
    /// shown, local or remote): tracks `$push.action`; the button's `event` too (properties
    /// `{messageId, localId}`: a workflow's cancelling event cancels the run's later steps here
    /// and on the server); a snooze shows the same notification again that much later
    /// (`<localId>/snooze/<n>`) and tracks `$local.snoozed`. It is a wake: a button chosen on
    /// the lock screen runs the app in the background, so the events go out before iOS
    /// suspends it, retried within the wake's budget when the server cannot take them yet.
    public func handleNotificationAction(_ actionId: String, on request: NotificationRequest, receivedAt: Date? = nil) async {
        guard let message = request.message else { return }
        let now = clock.now
        let wake = wakeDeadline(began: min(receivedAt ?? now, now), startedAt: now)
        guard readStateIfUnreadable() else { return }
        wakeBegan(wake)
        let action = request.presentation.category.flatMap { knownCategories[$0] }?.actions.first { $0.id == actionId }
        await withGate(urgent: true) {
            var properties: [String: JSONValue] = ["messageId": .string(message.messageId), "actionId": .string(actionId)]
            if let localId = message.localId { properties["localId"] = .string(localId) }
            if let event = makeEvent(BuzzEvent.pushAction, properties: properties) { enqueue(event, urgent: true) }
            if let name = action?.event {
                rememberTracked(name)
                _ = await cancelRegistered(eventName: name)
                var tracked: [String: JSONValue] = ["messageId": .string(message.messageId)]
                if let localId = message.localId { tracked["localId"] = .string(localId) }
                if let event = makeEvent(name, properties: tracked) { enqueue(event, urgent: true) }
            }
            var snoozedUntil: Date?
            if let action, let seconds = action.snoozeSeconds {
                snoozedUntil = await snooze(request, message: message, action: action, for: seconds, now: now)
            }
            report(.notificationAction(messageId: message.messageId, actionId: actionId, event: action?.event, snoozedUntil: snoozedUntil))
        }
        await beginWake(until: wake.workUntil, syncing: false)
        await endWake(wake, retryingEvents: .always)
    }

    /// Schedules `request` again `seconds` from now as `<id>/snooze/<n>` (n counts this
    /// notification's snoozes still pending or shown), registered under the same cancelling
    /// events as the plan; tracks `$local.snoozed`. Returns when it fires.
    private func snooze(_ request: NotificationRequest, message: NotificationMessage, action: NotificationAction,
                        for seconds: Int64, now: Date) async -> Date? {
        let base = message.localId ?? request.id
        let prefix = base + "/snooze/"
        let pending = await center.pendingRequests().map(\.id)
        let shown = await center.deliveredNotifications().map(\.id)
        let n = Set((pending + shown).filter { $0.hasPrefix(prefix) }).count + 1
        // A calendar trigger fires on a whole second: the next one at or after the snooze's end,
        // so the reminder never comes back sooner than the person asked.
        let until = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Double(seconds)).rounded(.up))
        var again = request
        again.id = prefix + String(n)
        again.fireAt = FireAt(instant: until, in: clock.timeZone)
        do {
            try await center.add(again)
        } catch {
            report(.error(BuzzKitError(.notificationCenter, context: "snooze \(again.id)", message: "\(error)")))
            return nil
        }
        let names = book.records[base]?.plan.cancelOn ?? book.registry.eventNames(for: base)
        if !names.isEmpty {
            book.register(names, requestId: again.id)
            saveBook()
        }
        var properties: [String: JSONValue] = ["messageId": .string(message.messageId), "actionId": .string(action.id),
                                               "snoozeId": .string(again.id), "until": .string(RFC3339.format(until))]
        if let localId = message.localId { properties["localId"] = .string(localId) }
        if let event = makeEvent(BuzzEvent.localSnoozed, properties: properties) { enqueue(event, urgent: false) }
        return until
    }
}
