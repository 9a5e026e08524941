/// How a simulated phone (or its person) behaves. Every phone's app starts suspended in the
/// background after its first launch; iOS may reclaim it (not running), and people open it
/// now and then.
public enum Behaviour: String, Sendable, CaseIterable, Codable {
    /// Receives the plan, schedules it, acknowledges; the local notification fires.
    case healthy
    /// Force-quit: iOS does not deliver silent pushes, so no plan, no acknowledgment; the
    /// server's fallback alert is what the person sees.
    case forceQuit = "force-quit"
    /// Low Power Mode (Background App Refresh off): iOS opens the app for no silent push; it
    /// keeps the newest for the app's next run. Every other person opens the app before the
    /// moment (the plan arrives then, and by sync); the others see the fallback.
    case lowPower = "low-power"
    /// Offline for a while after the plan arrives: the acknowledgment cannot get through
    /// before the app is suspended, so the plan is held back and the fallback shows it.
    case offline
    /// The person completes the workout before the moment: opens the app, which tracks the
    /// cancelling event; the phone removes the plan at once, the server cancels the run.
    case completes
    /// A subscriber with two phones: one acknowledges, the other is force-quit.
    case twoDevices = "two-devices"
    /// Offline when the backend moves the workout (a server-side cancel) and plans another:
    /// APNs keeps one of the two pushes. Half the phones come back before the moment (the
    /// sync repairs whatever APNs dropped); the other half stay offline through the moment,
    /// where the local copy of the cancelled plan fires and nobody could have prevented it.
    case offlineThroughCancel = "offline-through-cancel"
    /// The phone's silent-push budget is spent: iOS throttles every plan push. Half the people
    /// open the app before the moment (the sync brings the plan), half never do (fallback).
    case budgetExhausted = "budget-exhausted"
    /// Acknowledges in Kolkata, then flies to Kathmandu (15 minutes ahead) before the moment:
    /// the local notification fires at the planned wall clock where the phone is.
    case traveller
    /// Offline until a second before the moment, in an app that lets acknowledgments through
    /// until 0.4 s before it (``BuzzKit/Configuration/acknowledgmentDeadline``): the plan
    /// push APNs kept arrives as the phone comes back, and its acknowledgment is accepted
    /// within the last second, often while a fault holds `ack-ingest` back. Accepted before
    /// the moment, it counts: the local notification is the only one. Every other one is on
    /// a slow network: its acknowledgment reaches the server around the moment, as the
    /// fallback is decided; the phone takes its copy out at the last call and the server's
    /// answer decides which one is shown (issue 45, race 3).
    case lastSecond = "last-second"
    /// The person signs out before the moment and someone else signs in on the same phone:
    /// nothing of the first person is shown; the second person's plan arrives by sync.
    case logoutSwitch = "logout-switch"
    /// The person deletes and reinstalls the app (new token, empty state; the old token
    /// answers 410), before the workout is planned or after it was acknowledged, and opens it.
    case reinstalled
    /// Two phones: one where the person denied notifications (it must not acknowledge what it
    /// cannot show), one force-quit: the fallback shows it on the second.
    case denied
    /// A phone with many more than 64 future plans (a medication app: doses close together):
    /// sooner plans push later ones out, the phone releases what it acknowledged and lets go
    /// of (`$local.released`), the person opens the app as doses fire and parked plans are put
    /// back. Every dose is shown exactly once, locally or by the fallback.
    case crowded
    /// The same plans on two phones, one of them crowded by the app's own reminders: it
    /// releases what the other keeps. Each dose is shown once, on the phone that kept it.
    case crowdedTwoDevices = "crowded-two-devices"
    /// The app schedules its own reminders beside BuzzKit's (issue 45, race 5): after the plan
    /// was scheduled, the person opens the app, which adds 64 reminders of its own firing
    /// sooner. iOS keeps 64 pending requests and drops the latest-firing silently, BuzzKit's
    /// plan among them. The SDK sees it gone as the app leaves the screen, lets go of it
    /// (`$local.released` when the server may count its acknowledgment), and the server's
    /// fallback shows it once.
    case appOwnRequests = "app-own-requests"
    /// The person taps the reminder when it shows: on every other phone iOS had ended the
    /// app's process before, so the tap launches it (cold); otherwise the app was suspended
    /// (warm). The tap reaches BuzzKit's notification delegate and is tracked (`$push.opened`).
    case tapper
    /// The phone restarts just before the wave and stays locked: the plan's push launches the
    /// app, whose files and Keychain cannot be read before the first unlock, so the SDK changes
    /// nothing and acknowledges nothing. Every other person unlocks and opens the app before
    /// the moment (the sync brings the plan); the others after it, and see the fallback.
    case locked
    /// The person chooses "Done" on the reminder from the lock screen (a button that tracks the
    /// workflow's cancelling event, DESIGN §4c): iOS runs the app in the background, the SDK
    /// tracks `$push.action` and `workout.completed` before it is suspended, and the run's
    /// summary shows the button (the fleet's workflow ends with the reminder; a later step
    /// cancelled by Done is covered by the API tests).
    case doneFromLockScreen = "done-from-the-lock-screen"
    /// The person chooses "Snooze" on the reminder: the phone shows the same notification again
    /// once, the snooze's duration later (``FleetConfiguration/snoozeSeconds``: the fleet runs
    /// in real time, so its snooze is seconds, not the ten minutes an app would use).
    case snoozer
}
