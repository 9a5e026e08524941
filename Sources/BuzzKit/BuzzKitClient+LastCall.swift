import BuzzKitWire
import Foundation

/// The last call before a plan fires (issue 45, race 3).
///
/// An acknowledgment sent in the last second before a moment can reach the server after the
/// fallback was decided (a slow network or API). The server then does not count it and says
/// so in its answer (`"late"`), but if that answer comes after the moment, the local copy has
/// fired beside the fallback. So a plan whose acknowledgment is still on its way
/// ``lastCall`` seconds before it fires is taken out of the notification center, and the
/// answer decides: counted → shown at once (late by the answer's delay); late → forgotten
/// (the fallback shows it). A plan due within ``confirmFirstWindow`` of its arrival waits for
/// the answer from the start. A suspended app cannot take it out; that case keeps its copy, as
/// an acknowledgment cut off by a suspension most likely counted.
extension BuzzKitClient {
    /// How long before a plan fires its last call is: time enough for the SDK's timer and a
    /// removal from the notification center to land before iOS shows it.
    public static let lastCall: TimeInterval = 0.25

    /// A plan due within this many seconds of its arrival goes into the notification center
    /// only once the server has counted its acknowledgment (``PlanRecord/State/awaitingAnswer``
    /// from the start): its acknowledgment would likely still be on its way at the last call,
    /// and an app busy at that instant (many pushes at once, a slow main thread) could miss it.
    public static let confirmFirstWindow: TimeInterval = 2

    /// ``confirmFirstWindow``, or half as long again as the slowest of the API's latest
    /// answers when that is longer (at most the background budget). An overloaded API that
    /// takes 8 s to answer would otherwise leave a plan put back 6 s before its moment in the
    /// center with its acknowledgment still on its way, counting on a last call that a busy
    /// phone may reach too late: the server decides the fallback without it, and both show.
    var confirmFirstWindowNow: TimeInterval {
        max(Self.confirmFirstWindow, min(configuration.backgroundBudget, 1.5 * (answerTimes.max() ?? 0)))
    }

    /// Notes how long the API took to answer a request (kept: the last eight).
    func noteAnswerTime(_ seconds: TimeInterval) {
        answerTimes.append(max(0, seconds))
        if answerTimes.count > 8 { answerTimes.removeFirst(answerTimes.count - 8) }
    }

    /// How long after its moment a plan without `expiresAt` (from before lifetimes) is worth
    /// showing: the contract's default `expiresAfter`, an hour.
    static let defaultLifetime: TimeInterval = 3600

    /// The instant of `record`'s last call, if it still has one ahead (a scheduled plan whose
    /// acknowledgment is unconfirmed), for the SDK's timer.
    func lastCallInstant(of record: PlanRecord, zone: TimeZone) -> Date? {
        guard record.state == .scheduled, !record.acknowledgmentConfirmed, record.acknowledgmentEventId != nil else { return nil }
        return record.fireInstant(in: zone).addingTimeInterval(-Self.lastCall)
    }

    /// Inside the gate: takes out the plans at their last call whose acknowledgment is on its
    /// way (in flight, its last send about to go, or not sent yet), and forgets plans that
    /// waited for an answer past their lifetime.
    func processLastCalls() async {
        let now = clock.now
        let zone = clock.timeZone
        var changed = false
        for record in book.records.values.sorted(by: { $0.localId < $1.localId }) {
            if record.state == .awaitingAnswer {
                let expiry = record.plan.expiresAt ?? record.fireInstant(in: zone).addingTimeInterval(Self.defaultLifetime)
                guard now >= expiry else { continue }
                book.remove(localId: record.localId)
                changed = true
                report(.planLost(localId: record.localId, messageId: record.plan.messageId, reason: .noAnswerBeforeExpiry))
                continue
            }
            // On its way: in flight, its last send about to go, or never sent yet (queued
            // behind a slow request through its deadline: it cannot reach the server before
            // the moment). One that may have arrived before (cut off, queued again) keeps its
            // copy unless its last send was decided, as at a suspension.
            guard let call = lastCallInstant(of: record, zone: zone), call <= now, record.fireInstant(in: zone) > now,
                  let ackId = record.acknowledgmentEventId,
                  inFlightEventIds.contains(ackId)
                    || queue.contains(id: ackId) && (finalAttempts.contains(record.localId) || !record.acknowledgmentUncertain) else { continue }
            await center.removePendingRequests(withIdentifiers: [record.localId])
            book.update(record.localId) { $0.state = .awaitingAnswer }
            changed = true
            report(.planAwaitingAnswer(localId: record.localId, messageId: record.plan.messageId))
        }
        if changed { saveBook() }
    }

    /// The server answered a batch holding the acknowledgments `acknowledgmentIds`; `late`
    /// names the plans whose acknowledgment came after their fallback, `cancelled` those whose
    /// run was cancelled (neither counted). In the gate, ahead of ordinary work: a late plan's
    /// copy leaves the notification center (it may be about to fire), a cancelled run's plan
    /// leaves it as a cancel push would have removed it, and a plan taken out at its last call
    /// whose acknowledgment counted is shown.
    func applyAnswers(acknowledgmentIds: Set<String>, late: Set<String>, cancelled: Set<String> = []) async {
        let answered = book.records.values.filter { $0.acknowledgmentEventId.map(acknowledgmentIds.contains) ?? false }
        guard answered.contains(where: { late.contains($0.localId) || cancelled.contains($0.localId) || $0.state == .awaitingAnswer }) else { return }
        await withGate(urgent: true) {
            let now = clock.now
            let zone = clock.timeZone
            var removed: [String] = []
            for answer in answered {
                guard let record = book.records[answer.localId], record.acknowledgmentEventId == answer.acknowledgmentEventId else { continue }
                if cancelled.contains(record.localId) {
                    if record.state == .scheduled { await center.removePendingRequests(withIdentifiers: [record.localId]) }
                    book.remove(localId: record.localId)
                    book.addTombstone(CancelTombstone(id: record.localId, matchesPrefix: false, recordedAt: now))
                    finalAttempts.remove(record.localId)
                    removed.append(record.localId)
                } else if late.contains(record.localId) {
                    if record.state == .scheduled { await center.removePendingRequests(withIdentifiers: [record.localId]) }
                    book.remove(localId: record.localId)
                    finalAttempts.remove(record.localId)
                    report(.acknowledgmentLate(localId: record.localId, messageId: record.plan.messageId,
                                               alreadyShown: record.state == .scheduled && record.fireInstant(in: zone) <= now))
                } else if record.state == .awaitingAnswer {
                    await showAnswered(record, now: now, zone: zone)
                }
            }
            saveBook()
            for localId in removed.sorted() {
                report(.notificationsCancelled(localIds: [localId], trigger: .runCancelled(localId)))
            }
        }
    }

    /// Shows a plan taken out at its last call whose acknowledgment counted: at its own wall
    /// clock if that is still ahead, else at once.
    private func showAnswered(_ record: PlanRecord, now: Date, zone: TimeZone) async {
        let moment = record.fireInstant(in: zone)
        var request = NotificationRequest(plan: record.plan)
        // A calendar trigger a second ahead: iOS shows it at once (a past one never fires).
        if moment <= now { request.fireAt = FireAt(instant: now.addingTimeInterval(1), in: zone) }
        do {
            try await center.add(request)
        } catch {
            report(.error(BuzzKitError(.notificationCenter, context: "show \(record.localId)", message: "\(error)")))
            book.remove(localId: record.localId)
            report(.planLost(localId: record.localId, messageId: record.plan.messageId, reason: .notificationCenterFailed))
            return
        }
        book.update(record.localId) { $0.state = .scheduled }
        report(.planShownLate(localId: record.localId, messageId: record.plan.messageId, delay: max(0, now.timeIntervalSince(moment))))
    }
}
