import Foundation

/// Runs `body` on the concurrency pool and waits for it on this (the main) thread, running
/// the main run loop meanwhile: the commands are plain programs whose work is async, and the
/// simulated phones' UIKit and notification delegates run on the main thread, as on iOS.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    Task {
        let result: Result<T, Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.set(result)
    }
    while true {
        if let result = box.result { return try result.get() }
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<T, Error>?

    var result: Result<T, Error>? {
        lock.lock(); defer { lock.unlock() }
        return stored
    }

    func set(_ result: Result<T, Error>) {
        lock.lock(); stored = result; lock.unlock()
    }
}
