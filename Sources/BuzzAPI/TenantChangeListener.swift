import BuzzServer
import Foundation
import PostgresClient

/// Tells this API process at once when a tenant's credentials, settings or workflows change in
/// another process (`buzzkit tenant keys revoke`, `tenant signing-secret rotate`,
/// `PUT /v1/settings` or a workflow stored on another replica), so a revoked key stops working
/// everywhere within a moment rather than when the key cache expires, and a new cancelling
/// event name counts from its first event (``AcceptedCancels``).
///
/// Listens on ``PostgresDirectory/tenantChannel``; each notification carries a tenant id. After a
/// (re)connection it forgets every cached tenant, since notifications sent while it was away
/// are lost.
final class TenantChangeListener: @unchecked Sendable {
    let databaseURL: String
    let onChange: @Sendable (_ tenantId: String?) -> Void
    let log: Log?
    private let lock = NSLock()
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// `onChange(nil)` means "anything may have changed".
    init(databaseURL: String, log: Log? = nil, onChange: @escaping @Sendable (_ tenantId: String?) -> Void) {
        self.databaseURL = databaseURL
        self.log = log
        self.onChange = onChange
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// Starts listening on a thread of its own.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "buzzkit-tenant-changes"
        lock.withLock { self.thread = thread }
        thread.start()
    }

    private func run() {
        defer { done.signal() }
        var listener: PostgresConnection?
        while !isStopping {
            do {
                if listener == nil || listener?.isHealthy == false {
                    listener?.close()
                    listener = try PostgresConnection(url: databaseURL, applicationName: "buzzkit-api-tenant-changes")
                    try listener?.listen(PostgresDirectory.tenantChannel)
                    onChange(nil)
                }
                for notification in try listener?.waitForNotifications(timeout: 0.5) ?? [] {
                    onChange(notification.payload.isEmpty ? nil : notification.payload)
                }
            } catch {
                if listener != nil { log?.warning("lost the tenant-change channel; key caches expire on their own meanwhile", ["error": "\(error)"]) }
                listener?.close()
                listener = nil
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        listener?.close()
    }

    /// Stops listening and waits (at most `timeout` seconds) for the thread to end.
    func stop(timeout: TimeInterval = 2) {
        let started = lock.withLock { () -> Bool in
            stopping = true
            return thread != nil
        }
        if started { _ = done.wait(timeout: .now() + timeout) }
    }
}
