import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Whether a flush should start now: something is queued, none is in flight, the app is
    /// not being suspended, and either a last-chance send was requested or the queue is due
    /// and no backoff is pending.
    func shouldFlush(now: Date) -> Bool {
        guard flight == nil, !suspending, hasSendableEvents else { return false }
        if forceNextFlush { return true }
        guard let due = flushDueAt, due <= now else { return false }
        if let retryAt, retryAt > now { return false }
        return true
    }

    /// Starts the single flush flight.
    func startFlight() {
        guard flight == nil else { return }
        forceNextFlush = false
        flight = Task { await self.runFlight() }
    }

    /// Posts the queue in batches until it is empty or a request fails.
    ///
    /// - 2xx: the batch leaves the queue; acknowledgments in it are confirmed.
    /// - 401: a new subscriber token is fetched and the batch resent once.
    /// - another 4xx: the batch is halved until the refused event is alone, then dropped
    ///   (retrying cannot help, and it must not block the events behind it).
    /// - 408, 429, 5xx, network failure: stop; the next attempt waits for the backoff
    ///   (``RetryPolicy``, honouring `Retry-After`). Events carry client ids, so a batch that
    ///   did arrive is deduplicated when resent.
    func runFlight() async {
        var limit = configuration.eventBatchSize
        var reauthorized = false
        var failure: (error: BuzzKitError, retryAfter: TimeInterval?)?
        // Not after the hold for a suspension: an acknowledgment of a held plan that got out
        // now would have the server count on a plan that is not in the notification center.
        sending: while !queue.isEmpty, !suspending {
            // Nor an acknowledgment of a plan held out of the center: it waits until the
            // reconciliation puts the plan back (a flight from before the hold can outlast it).
            let batch = queue.batch(limit: limit, skipping: heldAcknowledgmentIds)
            guard !batch.isEmpty else { break }
            let ids = Set(batch.compactMap(\.id))
            inFlightEventIds = ids
            let (result, answer) = await post(batch)
            inFlightEventIds = []
            switch result {
            case .accepted:
                let late = Set(answer?.late ?? []), cancelled = Set(answer?.cancelled ?? [])
                delivered(ids, notCounted: late.union(cancelled))
                await applyAnswers(acknowledgmentIds: ids, late: late, cancelled: cancelled)
            case .unauthorized(let error):
                cachedToken = nil
                if reauthorized {
                    failure = (error, nil)
                    break sending
                }
                reauthorized = true
            case .refused(let error):
                if batch.count > 1 {
                    limit = max(1, batch.count / 2)
                } else {
                    queue.remove(ids: ids)
                    saveQueue()
                    report(.eventsDropped(eventIds: ids.sorted(), error: error))
                    limit = configuration.eventBatchSize
                }
            case .failed(let error, let retryAfter, let ambiguous):
                if ambiguous { markAcknowledgmentsUncertain(ids) }
                failure = (error, retryAfter)
                break sending
            }
            flightStepped()
        }
        if let failure {
            consecutiveFailures += 1
            lastFlushAnswered = failure.error.code == .httpStatus
            let delay = configuration.retryPolicy.delay(afterFailures: consecutiveFailures,
                                                        retryAfter: failure.retryAfter, random: ports.random())
            let next = clock.now.addingTimeInterval(delay)
            retryAt = next
            report(.flushFailed(error: failure.error, retryAt: next))
        } else {
            consecutiveFailures = 0
            retryAt = nil
            if queue.isEmpty { flushDueAt = nil }  // else stopped by a suspension: due at the next wake
        }
        flight = nil
        flightStepped()
        await tick()
    }

    /// Returns when the flight answered its next batch or ended.
    func nextFlightStep() async {
        await withCheckedContinuation { flightStepWaiters.append($0) }
    }

    private func flightStepped() {
        let waiting = flightStepWaiters
        flightStepWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Posts one batch: `POST /v1/events` with `{"events": [...]}`; with the answer's body
    /// when it is `{"accepted", "late"?}`.
    func post(_ batch: [BuzzEvent]) async -> (PostResult, AcceptedEvents?) {
        let context = "POST /v1/events"
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = try encoder.encode(["events": batch])
        } catch {
            return (.refused(BuzzKitError(.invalidEvent, context: context, message: "the batch could not be encoded: \(error)")), nil)
        }
        let (result, answer, _) = await exchange(method: "POST", path: "/v1/events", body: body, context: context)
        return (result, answer.flatMap { try? JSONDecoder().decode(AcceptedEvents.self, from: $0) })
    }

    /// Sends an authenticated JSON request to the API and classifies the result.
    func send(method: String, path: String, body: Data, context: String) async -> PostResult {
        await exchange(method: method, path: path, body: body, context: context).result
    }

    /// Sends an authenticated JSON request to the API; returns the classification and, for a
    /// response, its body.
    func exchange(method: String, path: String, body: Data, context: String,
                  token given: String? = nil) async -> (result: PostResult, body: Data?, status: Int?) {
        let token: String
        do {
            if let given { token = given } else { token = try await subscriberToken() }
        } catch {
            return (.failed(error as? BuzzKitError ?? BuzzKitError(.subscriberToken, context: context, message: "the app's token provider failed: \(error)"),
                            retryAfter: nil, ambiguous: false), nil, nil)
        }
        var base = configuration.apiBaseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + path) else {
            return (.refused(BuzzKitError(.invalidConfiguration, context: context, message: "\(base + path) is not a URL")), nil, nil)
        }
        let request = HTTPTransportRequest(method: method, url: url, headers: [
            "Authorization": "Bearer \(configuration.publishableKey)",
            "X-BuzzKit-Subscriber-Token": token,
            "Content-Type": "application/json",
            "Accept": "application/json",
        ], body: body)
        do {
            let sentAt = clock.now
            let response = try await ports.transport.send(request)
            noteAnswerTime(clock.now.timeIntervalSince(sentAt))
            return (PostResult(response: response, context: context), response.body, response.status)
        } catch {
            return (PostResult(transportError: error, context: context), nil, nil)
        }
    }

    /// The cached subscriber token while it has more than a minute left, else a fresh one
    /// from the app's provider (remembered, so a cold launch can use it before the app signs
    /// in again).
    func subscriberToken() async throws -> String {
        if let cachedToken {
            guard let expiry = SubscriberTokenProvider.expiry(of: cachedToken) else { return cachedToken }
            if expiry.timeIntervalSince(clock.now) > 60 || tokenProvider == nil && expiry > clock.now { return cachedToken }
        }
        guard let tokenProvider, let subscriberId = identity?.subscriberId else {
            throw BuzzKitError(.notSignedIn, context: "subscriber token", message: "nobody is signed in, or the app has not given a token provider since launch")
        }
        let token = try await tokenProvider.token()
        if identity?.subscriberId == subscriberId {
            cachedToken = token
            identity?.lastToken = token
            saveIdentity()
        }
        return token
    }

    /// The batch `ids` was accepted: it leaves the queue, and its acknowledgments are
    /// confirmed, except those of plans in `notCounted` (late, or of a cancelled run: see
    /// ``applyAnswers(acknowledgmentIds:late:cancelled:)``).
    private func delivered(_ ids: Set<String>, notCounted: Set<String>) {
        queue.remove(ids: ids)
        saveQueue()
        let notCountedIds = Set(notCounted.compactMap { book.records[$0]?.acknowledgmentEventId })
        let confirmed = book.confirmAcknowledgments(ids.subtracting(notCountedIds))
        if !confirmed.isEmpty {
            for id in confirmed { finalAttempts.remove(id) }
            saveBook()
        }
        report(.eventsDelivered(eventIds: ids.sorted()))
    }

    /// Whether the queue holds an event that may go out now (not a held plan's acknowledgment).
    var hasSendableEvents: Bool {
        !queue.isEmpty && !queue.batch(limit: 1, skipping: heldAcknowledgmentIds).isEmpty
    }

    /// The acknowledgments of plans held out of the notification center.
    var heldAcknowledgmentIds: Set<String> {
        Set(book.records.values.lazy.filter { $0.state == .held }.compactMap(\.acknowledgmentEventId))
    }

    private func markAcknowledgmentsUncertain(_ ids: Set<String>) {
        let affected = book.records.values.filter { $0.acknowledgmentEventId.map(ids.contains) ?? false }
        guard !affected.isEmpty else { return }
        for record in affected { book.update(record.localId) { $0.acknowledgmentUncertain = true } }
        saveBook()
    }
}
