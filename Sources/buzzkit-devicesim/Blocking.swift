import Foundation

/// Runs `body` on the concurrency pool and waits for it on this (the main) thread: the
/// commands are plain programs whose work is async.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, Error>?
}
