import BuzzKit
import BuzzKitWire
import Foundation

extension SimulatedPhone {
    /// Installs the app and opens it once (registration), then leaves it: suspended in the
    /// background, or force-quit for a phone that gets no silent pushes. The canary's kiosk
    /// phone stays on screen.
    func start() async {
        await attach(center)
        for index in 0..<appOwnRequests {
            // The app's own reminders, a year ahead: not BuzzKit's, but they take slots.
            let fireAt = FireAt(instant: Date().addingTimeInterval(365 * 86_400 + Double(index) * 60), in: systemClock.timeZone)
            try? await center.add(NotificationRequest(id: "app-own-\(index)", title: "Stretch", body: "Your own reminder",
                                                      userInfo: [:], fireAt: fireAt))
        }
        let quitAfterSetup = locked { forceQuit }
        await open(stay: nil)
        if alwaysInForeground { return }
        await leave()
        if quitAfterSetup { terminate(byPerson: true) }
    }

    /// Stops the phone (end of a run): the app goes away and the center stops firing.
    func stop() async {
        terminate(byPerson: false)
        await center.stopAutomaticFiring()
    }

    /// The person opens the app (launching it if needed): it is on screen, the SDK is told
    /// (sync, flush, registration). With `stay`, the person leaves after that many seconds.
    func open(stay seconds: Double?) async {
        note("person opens the app")
        let process = await ensureProcess(foreground: true)
        await process.client.applicationDidBecomeActive()
        guard let seconds else { return }
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
        await leave()
    }

    /// The person opens the app and at once does something that tracks `event` (marks the
    /// workout done). iOS calls the app's delegate while the screen is already the person's, so
    /// the tap does not wait for the SDK's wake (its sync and flush, which an outage can hold
    /// for seconds); the person leaves once the wake has settled.
    func openAndTrack(_ event: String) async {
        let process = await ensureProcess(foreground: true)
        let client = process.client
        let becameActive = Task { await client.applicationDidBecomeActive() }
        try? await client.track(event)
        await becameActive.value
        await leave()
    }

    /// The person opens the app, which adds `count` notification requests of its own (no
    /// BuzzKit user info) firing evenly between the two instants, then leaves. Past iOS's 64
    /// pending requests the latest-firing are dropped (``InMemoryNotificationCenter``), so
    /// BuzzKit's plans due later go; the SDK notices as the app leaves.
    func openAndAddOwnReminders(_ count: Int, firingBetween start: Date, and end: Date) async {
        note("person opens the app; it adds \(count) reminders of its own")
        let process = await ensureProcess(foreground: true)
        await process.client.applicationDidBecomeActive()
        let center = self.center
        let step = max(0.001, end.timeIntervalSince(start)) / Double(count + 1)
        for index in 0..<count {
            let instant = start.addingTimeInterval(step * Double(index + 1))
            let request = NotificationRequest(id: "own-\(index)", title: "Drink water", body: "A glass now.", sound: nil, userInfo: [:],
                                              fireAt: FireAt(instant: instant, in: center.clock.timeZone))
            try? await center.add(request)
        }
        await leave()
    }

    /// The person leaves the app: background, the SDK gets its background time, then iOS
    /// suspends it (unless a silent push is being handled).
    func leave() async {
        guard !alwaysInForeground else { return }
        let process = locked { () -> AppProcess? in
            guard state == .foreground else { return nil }
            state = .background
            // The Apple layer's background task (beginBackgroundTask) keeps the app running
            // until the SDK is done, like a silent push's wake: a wake that answers meanwhile
            // does not suspend it.
            wakes += 1
            return self.process
        }
        guard let process else { return }
        note("person leaves the app")
        await process.client.applicationDidEnterBackground()
        locked { wakes -= 1 }
        suspendIfIdle()
        note("app \(appState)")
    }

    /// iOS suspends a background app with no silent push in hand.
    func suspendIfIdle() {
        lock.lock()
        if state == .background, wakes == 0, !alwaysInForeground {
            state = .suspended
            process?.gate.set(running: false)
        }
        lock.unlock()
    }

    /// The app's process ends: iOS reclaimed it (`byPerson: false`) or the person swiped it
    /// away (then iOS delivers no silent push until the person opens it again).
    func terminate(byPerson: Bool) {
        lock.lock()
        process?.gate.set(running: false)
        process = nil
        launching = nil
        state = .notRunning
        if byPerson { forceQuit = true }
        lock.unlock()
    }

    /// The running process, launched first if there is none. `foreground`: the person opened
    /// it; otherwise iOS woke it in the background for a silent push.
    func ensureProcess(foreground: Bool) async -> AppProcess {
        let (running, launch) = locked { () -> (AppProcess?, Task<AppProcess, Never>?) in
            if foreground {
                forceQuit = false
                state = .foreground
            } else if state != .foreground {
                state = .background
            }
            if let process {
                process.gate.set(running: true)
                return (process, nil)
            }
            if let launching { return (nil, launching) }
            let task = Task { await self.launch() }
            launching = task
            return (nil, task)
        }
        if let running { return running }
        return await launch!.value
    }

    /// A new launch: a new SDK instance over the phone's store, signed in as the phone's
    /// owner (the app restores its own session at launch), started.
    private func launch() async -> AppProcess {
        let gate = AppGate()
        gate.set(running: true)
        let (owner, token, center, store) = locked { (ownerStorage, tokenStorage, centerStorage, storeStorage) }
        var sdk = Configuration(apiBaseURL: configuration.apiBaseURL, publishableKey: configuration.publishableKey,
                                subscriberId: owner, subscriberToken: tokenProvider(for: owner), pushTopic: configuration.topic)
        sdk.pushEnvironment = .production
        sdk.deviceToken = token
        sdk.automaticPushHandling = false
        sdk.eventFlushDelay = 0.5
        // Last-second phones, and the canary's kiosk (always on screen, probes 3 s ahead), rely
        // on a short acknowledgment deadline: a plan arriving inside it is left to the fallback.
        if behaviour == .lastSecond || alwaysInForeground { sdk.acknowledgmentDeadline = Self.lastSecondDeadline }
        let ports = BuzzKitPorts(notificationCenter: center, clock: AppClock(system: systemClock, gate: gate), store: store,
                                 transport: AppTransport(base: baseTransport, network: network, gate: gate))
        guard let client = try? BuzzKitClient(configuration: sdk, ports: ports) else {
            preconditionFailure("the simulator's SDK configuration is invalid")
        }
        let process = AppProcess(gate: gate, client: client)
        locked {
            self.process = process
            launching = nil
        }
        await client.setActivityObserver { [weak self] in self?.observe($0) }
        // As `BuzzKit.configure` does: the start runs beside what launched the app (a push,
        // a tap), which iOS hands over without waiting for it.
        Task { await client.start() }
        return process
    }

    /// The subscriber token the app's backend would mint for `subscriberId` (a day long).
    func tokenProvider(for subscriberId: String) -> SubscriberTokenProvider {
        let secret = configuration.signingSecret
        return SubscriberTokenProvider {
            TenantToken.make(signingSecret: secret, subscriberId: subscriberId, expiresAt: Int(Date().timeIntervalSince1970) + 86_400)
        }
    }

    /// Shows what `center` fires on this phone.
    func attach(_ center: InMemoryNotificationCenter) async {
        await center.setObserver { [weak self] notification in self?.record(notification) }
        await center.startAutomaticFiring(maximumSleep: 0.25)
    }
}
