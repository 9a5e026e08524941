import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Tracks an app event.
    ///
    /// First, without any network, removes the pending notifications (and parked plans)
    /// registered under `name` by plans' `cancelOn`. Then queues the event (persisted) for
    /// the next batch; an event that cancelled something is flushed at once, others after
    /// ``Configuration/eventFlushDelay``. Returns without waiting for the network.
    ///
    /// - Throws: ``BuzzKitError/Code/invalidEvent`` for a name the API refuses (empty, over
    ///   200 characters, with spaces, `*` or `#`, or starting with `$`, which is reserved);
    ///   ``BuzzKitError/Code/notSignedIn`` when nobody is signed in (the local cancel still
    ///   happens).
    public func track(_ name: String, properties: [String: JSONValue] = [:]) async throws {
        try Self.validateEventName(name)
        suspending = false  // the app's own code runs: it is not being suspended
        let queued = await withGate { () -> Bool in
            rememberTracked(name)
            let cancelled = await cancelRegistered(eventName: name)
            guard let event = makeEvent(name, properties: properties) else { return false }
            enqueue(event, urgent: !cancelled.isEmpty)
            return true
        }
        await tick()
        guard queued else {
            throw BuzzKitError(.notSignedIn, context: "track \(name)", message: "call login(subscriberId:subscriberToken:) before tracking events")
        }
    }

    /// Flushes the queue now unless a retry is being waited for, and waits for the attempt.
    public func flush() async {
        suspending = false  // the app's own code runs: it is not being suspended
        if !queue.isEmpty { flushDueAt = clock.now }
        await pump()
    }

    /// Tells the SDK the network is back (an app's reachability callback; the simulator when a
    /// phone goes online): forgets the backoff, flushes and retries the registration now.
    public func networkDidBecomeAvailable() async {
        retryAt = nil
        consecutiveFailures = 0
        registrationRetryAt = nil
        registrationFailures = 0
        let wake = wakeDeadline(began: clock.now)
        wakeBegan(wake)
        await beginWake(until: wake.workUntil)
        await endWake(wake)
    }

    /// Appends an event to the persisted queue and sets when the queue is due: at once for
    /// `urgent` events or a full batch, else after the flush delay.
    func enqueue(_ event: BuzzEvent, urgent: Bool) {
        let dropped = queue.append(event, maximum: configuration.maximumQueuedEvents)
        saveQueue()
        report(.eventQueued(name: event.event, eventId: event.id ?? ""))
        if !dropped.isEmpty {
            report(.eventsDropped(eventIds: dropped.compactMap(\.id),
                                  error: BuzzKitError(.queueFull, context: "track \(event.event)",
                                                      message: "the queue holds at most \(configuration.maximumQueuedEvents) events; the oldest were dropped")))
        }
        let now = clock.now
        let due = urgent || queue.count >= configuration.eventBatchSize ? now : now.addingTimeInterval(configuration.eventFlushDelay)
        flushDueAt = min(flushDueAt ?? due, due)
    }

    static func validateEventName(_ name: String) throws {
        func fail(_ message: String) -> BuzzKitError {
            BuzzKitError(.invalidEvent, context: "track \(name)", message: message)
        }
        guard !name.isEmpty, name.count <= 200 else { throw fail("an event name has 1–200 characters") }
        guard !name.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "#" }) else {
            throw fail("an event name may not contain spaces, * or #")
        }
        guard !name.hasPrefix("$") else { throw fail("names starting with $ are reserved for the SDK's own events") }
    }
}
