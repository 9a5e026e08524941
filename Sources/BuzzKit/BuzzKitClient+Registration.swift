import Foundation

extension BuzzKitClient {
    /// Sets the device token (hex) with the configured topic and environment and registers
    /// it at once (`PUT /v1/subscribers/{id}/devices`), retrying with backoff on failure.
    ///
    /// - Throws: ``BuzzKitError/Code/invalidConfiguration`` for a malformed token.
    public func setDeviceToken(_ hexToken: String) async throws {
        var desired = configuration.registration(token: hexToken)
        if let known = registration.desired?.authorization {
            desired.authorization = known
        } else {
            desired.authorization = await center.authorizationStatus()
        }
        desired.timezone = clock.timeZone.identifier
        desired.installId = installId
        desired.replacesInstallId = replacedInstallId
        guard desired.isWellFormed else {
            throw BuzzKitError(.invalidConfiguration, context: "device token",
                               message: "the device token must be hex (an even number of at least 16 digits)")
        }
        if registration.desired != desired {
            registration.desired = desired
            registrationRefused = false
            registrationRetryAt = nil
            registrationFailures = 0
            saveRegistration()
        }
        await pump()
    }

    /// Sets the device token from the raw bytes iOS hands the app.
    public func setDeviceToken(_ token: Data) async throws {
        try await setDeviceToken(PushRegistration.hexToken(token))
    }

    /// Registers the device now even if the server already has this registration, and
    /// returns the error if it failed (a retry is then scheduled unless the API refused it).
    @discardableResult
    public func registerDevice() async -> BuzzKitError? {
        guard registration.desired != nil else {
            return BuzzKitError(.invalidConfiguration, context: "register", message: "no device token yet")
        }
        await settle()
        registrationRefused = false
        let task = startRegistration()
        return await task.value
    }

    /// Whether the registration has to be sent: it changed, it was never accepted for this
    /// subscriber, or it has not been sent since launch (the server may have deactivated the
    /// token after an APNs rejection; registering again reactivates it, as Apple asks apps to
    /// do at every launch).
    var registrationDue: Bool {
        guard let subscriberId = identity?.subscriberId, registration.desired != nil else { return false }
        return registration.needsRegistration(subscriberId: subscriberId) || !registeredThisLaunch
    }

    func shouldRegister(now: Date) -> Bool {
        // Not before the state can be read (a phone not unlocked since it restarted): the
        // install id is in it, and a registration under a made-up one tells the server this is
        // a new install, which retires what the phone acknowledged (`make chaos` showed a
        // reminder twice that way).
        guard registrationTask == nil, !registrationRefused, registrationDue, !stateUnreadable else { return false }
        return registrationRetryAt.map { $0 <= now } ?? true
    }

    /// Reads the notification permission and, when it changed, registers it with the device.
    func refreshAuthorization() async {
        let authorization = await center.authorizationStatus()
        guard registration.desired != nil, registration.desired?.authorization != authorization else { return }
        registration.desired?.authorization = authorization
        registrationRefused = false
        registrationRetryAt = nil
        saveRegistration()
        report(.authorizationChanged(authorization))
    }

    /// Reads the phone's time zone and, when it changed (a flight, the person changed it in
    /// Settings), registers it with the device: the server moves the subscriber's zone with it.
    /// The install ids go with the registration the same way.
    func refreshTimeZone() {
        let zone = clock.timeZone.identifier
        guard registration.desired != nil, registration.desired?.timezone != zone || registration.desired?.installId != installId
                || registration.desired?.replacesInstallId != replacedInstallId else { return }
        registration.desired?.timezone = zone
        registration.desired?.installId = installId
        registration.desired?.replacesInstallId = replacedInstallId
        registrationRefused = false
        registrationRetryAt = nil
        saveRegistration()
    }

    /// The phone's time zone or clock changed (iOS: `NSSystemTimeZoneDidChange`,
    /// `UIApplication.significantTimeChangeNotification`). Plans fire at their floating wall
    /// clock in the new zone (their calendar triggers follow it); the SDK reconciles them, moves
    /// its acknowledgment deadlines, and reports the zone with the device.
    public func timeZoneDidChange() async {
        refreshTimeZone()
        await withGate { await self.reconcile() }
        await pump()
    }

    /// Asks the person for notification permission (once; later calls return the answer
    /// given) and reports the result to the server with the device.
    @discardableResult
    public func requestNotificationPermission() async throws -> NotificationAuthorization {
        let answer = try await center.requestAuthorization()
        await refreshAuthorization()
        await pump()
        return answer
    }

    /// Starts the single registration request.
    @discardableResult
    func startRegistration() -> Task<BuzzKitError?, Never> {
        if let registrationTask { return registrationTask }
        let task = Task { () -> BuzzKitError? in
            let error = await self.performRegistration()
            self.registrationTask = nil
            self.scheduleTimer()
            return error
        }
        registrationTask = task
        return task
    }

    private func performRegistration() async -> BuzzKitError? {
        guard let desired = registration.desired, let subscriberId = identity?.subscriberId else { return nil }
        let path = "/v1/subscribers/\(Self.encodePathSegment(subscriberId))/devices"
        let context = "PUT /v1/subscribers/{id}/devices"
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = try encoder.encode(desired.body)
        } catch {
            return BuzzKitError(.invalidConfiguration, context: context, message: "\(error)")
        }
        var result = await send(method: "PUT", path: path, body: body, context: context)
        if case .unauthorized = result {
            cachedToken = nil
            result = await send(method: "PUT", path: path, body: body, context: context)
        }
        switch result {
        case .accepted:
            registeredThisLaunch = true
            if registration.desired == desired, identity?.subscriberId == subscriberId {
                registration.registered = desired
                registration.registeredSubscriberId = subscriberId
                if registration.previousSubscriberId != nil {
                    // The token is this subscriber's now: the plans refused meanwhile come
                    // with a sync that starts after this point.
                    registration.previousSubscriberId = nil
                    registration.switchedAt = clock.now
                    if refusedBeforeSwitch {
                        refusedBeforeSwitch = false
                        requestSyncAfterNow()
                    }
                }
                saveRegistration()
            }
            registrationFailures = 0
            registrationRetryAt = nil
            report(.deviceRegistered(desired))
            return nil
        case .refused(let error):
            registrationRefused = true
            report(.registrationFailed(error: error, retryAt: nil))
            return error
        case .unauthorized(let error), .failed(let error, _, _):
            registrationFailures += 1
            let retryAfter: TimeInterval? = if case .failed(_, let after, _) = result { after } else { nil }
            let delay = configuration.retryPolicy.delay(afterFailures: registrationFailures, retryAfter: retryAfter, random: ports.random())
            let next = clock.now.addingTimeInterval(delay)
            registrationRetryAt = next
            report(.registrationFailed(error: error, retryAt: next))
            return error
        }
    }

    /// Percent-encodes a path segment (everything but unreserved characters).
    static func encodePathSegment(_ segment: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
