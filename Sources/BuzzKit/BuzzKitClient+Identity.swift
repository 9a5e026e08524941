import BuzzKitWire
import Foundation

extension BuzzKitClient {
    /// Signs a subscriber in: from now on plans are acknowledged, events tracked and the
    /// device registered for `subscriberId`, with tokens from `subscriberToken` (called again
    /// a minute before a token's `expiresAt`, or after a 401). Signing in someone else first
    /// signs the current subscriber out (``logout()``). Returns after the registration and
    /// the first sync were attempted.
    ///
    /// - Throws: ``BuzzKitError/Code/invalidConfiguration`` for an id the API refuses.
    public func login(subscriberId: String, subscriberToken: SubscriberTokenProvider) async throws {
        try Identity.validate(subscriberId: subscriberId, context: "login")
        if let current = identity, current.subscriberId != subscriberId {
            await signOut(current)
        }
        tokenProvider = subscriberToken
        if identity?.subscriberId != subscriberId {
            identity = Identity(subscriberId: subscriberId)
            cachedToken = nil
            saveIdentity()
            registrationRefused = false
            registrationRetryAt = nil
            registrationFailures = 0
            report(.signedIn(subscriberId: subscriberId))
        }
        await beginWake()
        await settle()
    }

    /// Signs the subscriber out: removes every pending and shown BuzzKit notification, the
    /// `cancelOn` registry and the queued events of that subscriber from the phone, and tells
    /// the server (`DELETE /v1/subscribers/{id}/devices/{token}`) that this token receives
    /// nothing more for them. Offline, the request is kept and retried at every wake.
    public func logout() async {
        guard let current = identity else { return }
        await signOut(current)
        startPendingLogouts()
        await settle()
    }

    /// Removes everything of `current` from the phone and queues the device's removal.
    func signOut(_ current: Identity) async {
        // The DELETE needs this subscriber's token; get it before the identity goes (the
        // app's backend may end the session right after).
        let token = try? await subscriberToken()
        await withGate {
            let pending = await center.pendingRequests()
                .filter { book.records[$0.id] != nil || $0.message != nil }.map(\.id)
            if !pending.isEmpty { await center.removePendingRequests(withIdentifiers: pending) }
            let shown = await center.deliveredNotifications()
                .filter { NotificationMessage(userInfo: $0.userInfo) != nil }.map(\.id)
            if !shown.isEmpty { await center.removeDeliveredNotifications(withIdentifiers: shown) }
            book = PlanBook()
            saveBook()
            queue.remove(ids: Set(queue.events.compactMap(\.id)).subtracting(inFlightEventIds))
            saveQueue()
            if let deviceToken = registration.registered?.token ?? registration.desired?.token, let token {
                pendingLogouts.append(PendingLogout(subscriberId: current.subscriberId, deviceToken: deviceToken, subscriberToken: token))
                saveLogouts()
            }
            registration.registered = nil
            registration.registeredSubscriberId = nil
            registration.previousSubscriberId = current.subscriberId
            saveRegistration()
            identity = nil
            cachedToken = nil
            tokenProvider = nil
            registeredThisLaunch = false
            saveIdentity()
        }
        report(.signedOut(subscriberId: current.subscriberId, unregistered: false))
    }

    /// Starts sending the pending logouts, one at a time, unless already running.
    func startPendingLogouts() {
        guard logoutTask == nil, !pendingLogouts.isEmpty else { return }
        logoutTask = Task { () -> Void in
            await self.sendPendingLogouts()
            self.logoutTask = nil
        }
    }

    private func sendPendingLogouts() async {
        while let logout = pendingLogouts.first {
            let path = "/v1/subscribers/\(Self.encodePathSegment(logout.subscriberId))/devices/\(Self.encodePathSegment(logout.deviceToken))"
            let (result, _, status) = await exchange(method: "DELETE", path: path, body: Data(),
                                             context: "DELETE /v1/subscribers/{id}/devices/{token}", token: logout.subscriberToken)
            switch result {
            case .failed(let error, _, _) where status != 404:
                // Offline or the server is unwell: keep it for the next wake.
                report(.error(error))
                return
            case .accepted:
                report(.signedOut(subscriberId: logout.subscriberId, unregistered: true))
            case .failed, .refused, .unauthorized:
                // 404 (the token already moved to another subscriber), or a token that
                // expired: nothing left to undo here; the next registration moves the token.
                break
            }
            pendingLogouts.removeAll { $0 == logout }
            saveLogouts()
        }
    }
}
