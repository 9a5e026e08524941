import BuzzKit
import UIKit

/// Asks for notification permission when a reminder obviously helps: right after the person
/// books a workout, never at first launch. iOS asks only once, so the app explains first and
/// lets the person say "not now" without spending that one question.
///
/// Until the person allows notifications this phone does not acknowledge plans; the server's
/// fallback reaches the person's other devices instead.
@MainActor
enum PermissionPrompt {
    static func offerReminders(from presenter: UIViewController) async {
        // Reads the permission without asking (iOS re-reads Settings every time).
        switch await UserNotificationCenterScheduler().authorizationStatus() {
        case .authorized, .provisional:
            return
        case .notDetermined:
            guard await ask(presenter, title: "Remind you on workout day?",
                            message: "We'll send one reminder the morning of each workout you book.",
                            confirm: "Remind me") else { return }
            // iOS's own prompt; the SDK reports the answer to the server with the device.
            _ = try? await BuzzKit.requestNotificationPermission()
        case .denied:
            guard await ask(presenter, title: "Reminders are off",
                            message: "Turn on notifications for GymApp in Settings to get workout reminders.",
                            confirm: "Open Settings") else { return }
            // Back from Settings, the SDK reads the new permission as the app becomes active.
            if let url = URL(string: UIApplication.openSettingsURLString) { _ = await UIApplication.shared.open(url) }
        }
    }

    private static func ask(_ presenter: UIViewController, title: String, message: String, confirm: String) async -> Bool {
        await withCheckedContinuation { continuation in
            let alert = UIAlertController(title: title, message: message, preferredStyle: .alert)
            alert.addAction(UIAlertAction(title: "Not now", style: .cancel) { _ in continuation.resume(returning: false) })
            alert.addAction(UIAlertAction(title: confirm, style: .default) { _ in continuation.resume(returning: true) })
            presenter.present(alert, animated: true)
        }
    }
}
