import BuzzKit
import UIKit

/// One workout. "Book" tracks `workout.scheduled` (the leg-day workflow's trigger, which plans
/// the morning-of reminder) and offers reminders; "Done" tracks `workout.completed`, which the
/// workflow lists in `cancelOn`: the SDK removes the pending reminder at once, offline
/// included, and the server cancels the run.
final class WorkoutViewController: UIViewController {
    private let workoutId: String

    init(workoutId: String) {
        self.workoutId = workoutId
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("init(coder:) is not used") }

    override func viewDidLoad() {
        super.viewDidLoad()
        title = "Workout: \(workoutId)"
        view.backgroundColor = .systemBackground
        let book = UIButton(configuration: .bordered(), primaryAction: UIAction(title: "Book for tomorrow") { [weak self] _ in
            self?.bookTapped()
        })
        let done = UIButton(configuration: .filled(), primaryAction: UIAction(title: "Done") { [weak self] _ in
            self?.doneTapped()
        })
        let stack = UIStackView(arrangedSubviews: [book, done])
        stack.axis = .vertical
        stack.spacing = 16
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.centerXAnchor.constraint(equalTo: view.centerXAnchor),
            stack.centerYAnchor.constraint(equalTo: view.centerYAnchor),
        ])
        updateSessionButton()
    }

    private func bookTapped() {
        Task {
            await track("workout.scheduled")
            await PermissionPrompt.offerReminders(from: self)
        }
    }

    private func doneTapped() {
        Task { await track("workout.completed") }
    }

    private func track(_ event: String) async {
        do {
            try await BuzzKit.track(event, properties: ["workoutId": .string(workoutId)])
        } catch let error as BuzzKitError where error.code == .notSignedIn {
            // Nobody signed in: the local cancel happened all the same; nothing to send.
        } catch {
            print("BuzzKit.track \(event): \(error)")
        }
    }

    // MARK: Sign-in and sign-out (the app's own, followed by BuzzKit's)

    private func updateSessionButton() {
        let signedIn = SessionController.shared.isSignedIn
        navigationItem.rightBarButtonItem = UIBarButtonItem(title: signedIn ? "Sign out" : "Sign in",
                                                            primaryAction: UIAction { [weak self] _ in
            self?.sessionTapped()
        })
    }

    private func sessionTapped() {
        if SessionController.shared.isSignedIn {
            Task {
                await SessionController.shared.signOut()
                updateSessionButton()
            }
            return
        }
        let alert = UIAlertController(title: "Sign in", message: nil, preferredStyle: .alert)
        alert.addTextField { $0.placeholder = "Email"; $0.keyboardType = .emailAddress; $0.autocapitalizationType = .none }
        alert.addTextField { $0.placeholder = "Password"; $0.isSecureTextEntry = true }
        alert.addAction(UIAlertAction(title: "Cancel", style: .cancel))
        alert.addAction(UIAlertAction(title: "Sign in", style: .default) { [weak self, weak alert] _ in
            let email = alert?.textFields?[0].text ?? ""
            let password = alert?.textFields?[1].text ?? ""
            Task {
                do {
                    try await SessionController.shared.signIn(email: email, password: password)
                } catch {
                    print("Sign-in: \(error)")
                }
                self?.updateSessionButton()
            }
        })
        present(alert, animated: true)
    }
}
