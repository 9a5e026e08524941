import BuzzKitOnAppleModel
import BuzzKitWire
import Foundation
import Network
import UIKit

extension SimulatedPhone {
    /// Installs the app and opens it once (registration), then leaves it: suspended in the
    /// background, or force-quit for a phone that gets no silent pushes. The canary's kiosk
    /// phone stays on screen.
    func start() async {
        attach(center)
        for index in 0..<appOwnRequests {
            // The app's own reminders, a year ahead: not BuzzKit's, but they take slots.
            let fireAt = FireAt(instant: Date().addingTimeInterval(365 * 86_400 + Double(index) * 60), in: systemClock.timeZone)
            await addOwnRequest(id: "app-own-\(index)", title: "Stretch", body: "Your own reminder", fireAt: fireAt)
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
        detachCenter()
    }

    /// The person opens the app (launching it if needed): it is on screen, the SDK is told
    /// (sync, flush, registration). With `stay`, the person leaves after that many seconds.
    func open(stay seconds: Double?) async {
        note("person opens the app")
        let process = await foregroundProcess()
        await process.application.modelBecomeActive()
        deliverHeldThrottledPush()
        guard let seconds else { return }
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
        await leave()
    }

    /// The person opens the app and at once does something that tracks `event` (marks the
    /// workout done). iOS calls the app's delegate while the screen is already the person's, so
    /// the tap does not wait for the SDK's wake (its sync and flush, which an outage can hold
    /// for seconds); the person leaves once the wake has settled.
    func openAndTrack(_ event: String) async {
        let process = await foregroundProcess()
        await process.application.modelBecomeActive()
        try? await process.client.track(event)
        await leave()
    }

    /// The person opens the app, which adds `count` notification requests of its own (no
    /// BuzzKit user info) firing evenly between the two instants, then leaves. Past iOS's 64
    /// pending requests the latest-firing are dropped (the model's center), so
    /// BuzzKit's plans due later go; the SDK notices as the app leaves.
    func openAndAddOwnReminders(_ count: Int, firingBetween start: Date, and end: Date) async {
        note("person opens the app; it adds \(count) reminders of its own")
        let process = await foregroundProcess()
        await process.application.modelBecomeActive()
        let step = max(0.001, end.timeIntervalSince(start)) / Double(count + 1)
        for index in 0..<count {
            let instant = start.addingTimeInterval(step * Double(index + 1))
            await addOwnRequest(id: "own-\(index)", title: "Drink water", body: "A glass now.",
                                fireAt: FireAt(instant: instant, in: systemClock.timeZone))
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
        // UIKit posts `didEnterBackground`; BuzzKit's lifecycle observer does its work inside a
        // background task, and iOS suspends the app once no task or silent push holds it.
        await process.application.modelEnterBackground()
        await process.application.modelWhenIdle()
        locked { wakes -= 1 }
        suspendIfIdle()
        note("app " + appState.rawValue)
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
        if let application = process?.application { Task { @MainActor in application.modelTerminate() } }
        process?.gate.set(running: false)
        process = nil
        // A launch under way dies with the process (``launch(_:)`` sees `processEnds` moved).
        launching = nil
        processEnds += 1
        state = .notRunning
        device.appInForeground = false
        if byPerson { forceQuit = true }
        lock.unlock()
    }

    /// The running process, launched first if there is none: the person opened the app.
    func foregroundProcess() async -> AppProcess {
        while true {
            // A launch killed under way (the app deleted meanwhile) is followed by a new one.
            if let process = await ensureProcess(foreground: true) { return process }
        }
    }

    /// The running process for a background wake (a silent push, a lock-screen button), launched
    /// first if there is none; nil when the process ended before its launch finished: the wake
    /// ends with it, noted as `lost`.
    func backgroundProcess(orNote lost: String) async -> AppProcess? {
        if let process = await ensureProcess(foreground: false) { return process }
        note(lost)
        locked { wakes -= 1 }
        return nil
    }

    /// The running process, launched first if there is none. `foreground`: the person opened
    /// it; otherwise iOS woke it in the background for a silent push or a button. Nil when the
    /// process ended before its launch finished (the person deleted the app meanwhile).
    func ensureProcess(foreground: Bool) async -> AppProcess? {
        let (running, launch) = locked { () -> (AppProcess?, Task<AppProcess?, Never>?) in
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
            // What the launch runs on is the install's now, not whatever is there when its task starts.
            let inputs = LaunchInputs(owner: ownerStorage, token: tokenStorage, center: centerStorage, store: storeStorage,
                                      keychain: keychainStorage, install: install, processEnds: processEnds)
            let task = Task { await self.launch(inputs) }
            launching = task
            return (nil, task)
        }
        if let running { return running }
        return await launch!.value
    }

    /// A new launch: iOS makes the app's `UIApplication` (the Apple model's) and calls the app
    /// delegate's `didFinishLaunching`, where the app configures BuzzKit over the phone's
    /// environment in automatic mode (the app restores its own session: signed in as the
    /// phone's owner) and starts it. The device token comes back through the app delegate hook.
    /// Nil when the process ended meanwhile (iOS kills a deleted app's process, launch or not).
    private func launch(_ inputs: LaunchInputs) async -> AppProcess? {
        let gate = AppGate()
        gate.set(running: true)
        let (owner, install) = (inputs.owner, inputs.install)
        var sdk = Configuration(apiBaseURL: configuration.apiBaseURL, publishableKey: configuration.publishableKey,
                                subscriberId: owner, subscriberToken: tokenProvider(for: owner), pushTopic: configuration.topic)
        sdk.pushEnvironment = .production
        sdk.eventFlushDelay = 0.5
        // Last-second phones, and the canary's kiosk (always on screen, probes 3 s ahead), rely
        // on a short acknowledgment deadline: a plan arriving inside it is left to the fallback.
        if behaviour == .lastSecond || alwaysInForeground { sdk.acknowledgmentDeadline = Self.lastSecondDeadline }
        let ports = BuzzKitPorts(notificationCenter: UserNotificationCenterScheduler(center: inputs.center),
                                 clock: AppClock(system: systemClock, gate: gate),
                                 store: DataProtectedStore(inputs.store, device: device) { [weak self] in self?.locked { self?.protectedRefusals += 1 } },
                                 secrets: DataProtectedStore(inputs.keychain, device: device) { [weak self] in self?.locked { self?.protectedRefusals += 1 } },
                                 transport: AppTransport(base: baseTransport, network: network, gate: gate))
        let application = UIApplication(modelDevice: device, deviceToken: Self.data(hex: inputs.token))
        let environment = ApplicationEnvironment(
            pushEvents: ApplicationPushEventSource(center: inputs.center, application: { application }),
            notifications: application.modelNotificationCenter,
            pathMonitor: { [modelNetwork] in NWPathMonitor(modelNetwork: modelNetwork) })
        let configuration = sdk
        let delegate = await MainActor.run {
            let delegate = SimulatedAppDelegate(configure: {
                guard let client = try? environment.makeClient(configuration, ports: ports) else {
                    preconditionFailure("the simulator's SDK configuration is invalid")
                }
                return client
            }, prepare: { [weak self] client in await client.setActivityObserver { [weak self] in self?.observe($0, from: install) } })
            application.modelLaunch(delegate: delegate, foreground: false)
            return delegate
        }
        guard let client = await MainActor.run(body: { delegate.client }) else { preconditionFailure("the app did not configure BuzzKit") }
        // The simulator's view into the SDK is in place before anything reaches the app: a tap
        // that launched it was once handled before the observer was set (a tap not counted).
        await MainActor.run(body: { delegate.prepared })?.value
        let process = AppProcess(gate: gate, application: application, delegate: delegate, client: client)
        let alive = locked { () -> Bool in
            guard processEnds == inputs.processEnds else { return false }
            self.process = process
            launching = nil
            return true
        }
        let named = install > 1 ? " (install \(install))" : ""
        guard alive else {
            // The process ended while it launched (a reinstall: the deleted app's launch for a
            // silent push once went on to run beside the new install's, and both scheduled).
            gate.set(running: false)
            Task { @MainActor in application.modelTerminate() }
            note("a launch under way ended with the app's process" + named)
            return nil
        }
        note("app launched" + named)
        return process
    }

    /// The bytes of a hex device token.
    static func data(hex: String) -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes)
    }

    /// The subscriber token the app's backend would mint for `subscriberId` (a day long).
    func tokenProvider(for subscriberId: String) -> SubscriberTokenProvider {
        let secret = configuration.signingSecret
        return SubscriberTokenProvider {
            TenantToken.make(signingSecret: secret, subscriberId: subscriberId, expiresAt: Int(Date().timeIntervalSince1970) + 86_400)
        }
    }
}
