import BuzzKit
import UIKit

/// The app delegate: nothing of BuzzKit's beyond `configure`, which hooks the push callbacks
/// (silent pushes, the device token) and the notification delegate itself.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        // Synchronously, on the main thread, before this method returns: `configure` installs
        // the notification delegate and registers for remote notifications, so a tap or a
        // silent push that launched the app reaches the SDK.
        var configuration = Configuration(apiBaseURL: GymBackend.buzzKitAPI, publishableKey: GymBackend.publishableKey,
                                          pushTopic: Bundle.main.bundleIdentifier!)
        // Someone is signed in: hand the SDK the subscriber and a token provider now, so a launch
        // by a silent push (before any screen appears) can acknowledge plans.
        if let session = SessionController.shared.buzzKitIdentity() {
            configuration.subscriberId = session.subscriberId
            configuration.subscriberToken = session.tokenProvider
        }
        do {
            try BuzzKit.configure(configuration)
        } catch {
            // Only unusable settings throw (a key that is not pk_…, a backgroundBudget over 28 s).
            assertionFailure("BuzzKit.configure: \(error)")
        }
        Task {
            // Taps on BuzzKit notifications, local or fallback: `$push.opened` is already
            // tracked when this runs; route the deep link the workflow's `send` step carried.
            try? await BuzzKit.setOpenHandler { opened in
                guard let link = opened.deepLink, let url = URL(string: link) else { return }
                await MainActor.run { DeepLinkRouter.shared.open(url) }
            }
        }
        return true
    }
}

/// Opens the app's deep links (`gym://workouts/<id>`), keeping one that arrives before the
/// first screen exists (a tap that launched the app) until the scene is connected.
@MainActor
final class DeepLinkRouter {
    static let shared = DeepLinkRouter()

    private var pending: URL?

    /// The scene's navigation stack; set by ``SceneDelegate``.
    weak var navigationController: UINavigationController? {
        didSet {
            if let url = pending {
                pending = nil
                open(url)
            }
        }
    }

    func open(_ url: URL) {
        guard url.scheme == "gym", url.host == "workouts", let workoutId = url.pathComponents.dropFirst().first else { return }
        guard let navigationController else {
            pending = url
            return
        }
        navigationController.pushViewController(WorkoutViewController(workoutId: workoutId), animated: true)
    }
}
