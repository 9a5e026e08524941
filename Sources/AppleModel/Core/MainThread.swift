import Foundation

/// How the model calls into the app: on the main thread, as UIKit and UserNotifications do
/// (Apple, "Main Thread Checker": UIKit's delegate callbacks arrive on the main queue; the
/// notification center's delegate "is called on the main thread").
public enum MainThread {
    /// Runs `body` on the main thread, main-actor isolated, and waits until it returns.
    public static func run<T: Sendable>(_ body: @escaping @MainActor @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                continuation.resume(returning: MainActor.assumeIsolated { body() })
            }
        }
    }
}
