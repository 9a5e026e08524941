import BuzzKitOnAppleModel
import Foundation
import UserNotifications

extension SimulatedPhone {
    /// The phone loses its network: the SDK's requests fail, and APNs keeps one notification.
    func goOffline() {
        note("offline")
        network.set(online: false)
        modelNetwork.set(up: false)
        mailbox.disconnect()
    }

    /// The network is back: APNs hands over what it kept, and a running app is told.
    /// `uplinkDelay`: how long each of the app's requests then takes to reach the server.
    func goOnline(uplinkDelay: TimeInterval = 0) async {
        note(uplinkDelay > 0 ? String(format: "online (slow: requests reach the server %.1f s later)", uplinkDelay) : "online")
        network.uplinkDelay = uplinkDelay
        network.set(online: true)
        // The app's `NWPathMonitor` reports the path; BuzzKit's lifecycle observer tells the SDK.
        modelNetwork.set(up: true)
        if let stored = mailbox.reconnect(now: Date()) {
            Task { await self.handOver(stored.payload, silent: stored.isSilent) }
        }
    }

    /// When the server took this phone's device from `former` after `next` signed in on it:
    /// the first of the logout's `DELETE` and `next`'s registration it accepted (nil: not yet).
    func serverMovedDevice(from former: String, to next: String) -> Date? {
        locked { [unregistered[former], registered["\(next)|\(tokenStorage)"]].compactMap { $0 }.min() }
    }

    /// When the server first accepted this phone's device for `owner` (nil: not yet).
    func registeredAt(for owner: String) -> Date? {
        locked { registered["\(owner)|\(tokenStorage)"] }
    }

    /// The person lands in another zone: pending local notifications follow the wall clock.
    /// A running app hears of it (`NSSystemTimeZoneDidChange`).
    func travel(to zone: String) async {
        guard let timeZone = TimeZone(identifier: zone) else { return }
        // The center looks at its requests in the old zone up to this instant (what came due
        // fires), then sleeps anew to their dates in the new one.
        _ = await center.modelDeliverDue()
        systemClock.setTimeZone(timeZone)
        locked { centerWakeup }?.poke()
        if let process = locked({ process }) { await process.application.modelTimeZoneDidChange() }
    }

    /// The phone restarts: the app's process ends (not by the person: silent pushes may launch
    /// it again), and until the first unlock its protected files and Keychain items cannot be
    /// read (``DataProtectedStore``).
    func restart() {
        note("the phone restarts (locked, not unlocked since)")
        terminate(byPerson: false)
        device.modelRestart()
    }

    /// The person unlocks the phone; on the first unlock since a restart a running app is told
    /// that protected data became available.
    func unlock() async {
        guard device.modelUnlock() else { return }
        note("first unlock since the restart")
        if let process = locked({ process }) { await process.application.modelProtectedDataDidBecomeAvailable() }
    }

    /// The person opens the app, signs out, and `newOwner` signs in on the same phone.
    func switchUser(to newOwner: String, stay seconds: Double) async {
        note("person signs out; \(newOwner) signs in")
        let process = await foregroundProcess()
        await process.application.modelBecomeActive()
        // The person finds the sign-out button once the app's return to the screen (BuzzKit's
        // sync and flush, started by `didBecomeActive` a main-queue turn later) has settled.
        try? await Task.sleep(nanoseconds: 200_000_000)
        await process.client.settle()
        await process.client.logout()
        locked { ownerStorage = newOwner }
        try? await process.client.login(subscriberId: newOwner, subscriberToken: tokenProvider(for: newOwner))
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        await leave()
    }

    /// The person deletes the app and installs it again: iOS drops its pending notifications
    /// and its files (not its Keychain items), the new install gets a new device token, the
    /// old one answers 410. The
    /// new install gets no silent push until the person opens it.
    func reinstall() async {
        note("person deletes and reinstalls the app")
        let oldToken = token
        terminate(byPerson: true)
        detachCenter()
        let fresh = UNUserNotificationCenter(modelDevice: device, authorization: authorization.modelStatus)
        let newToken = Self.newToken()
        locked {
            install += 1
            centerStorage = fresh
            storeStorage = InMemoryKeyValueStore()
            tokenStorage = newToken
            retiredTokens.append(oldToken)
        }
        attach(fresh)
        onNewToken?(self, oldToken, newToken)
    }
}
