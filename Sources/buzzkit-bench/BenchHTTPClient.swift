import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blocking JSON POSTs to the API under test (the bench's threads are not async).
struct BenchHTTPClient: Sendable {
    let base: String

    /// Posts `body` as JSON with the bearer `key`; returns the status (0 when nothing answered).
    func post(_ path: String, _ body: [String: Any], key: String, headers: [String: String] = [:]) -> Int {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        request.httpBody = try? JSONSerialization.data(withJSONObject: body)
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        let status = Locked(0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode ?? 0 }
            done.signal()
        }.resume()
        done.wait()
        return status.withLock { $0 }
    }
}

/// A value shared between the bench's threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
