import CLibPQ
import Foundation

/// A message sent with `NOTIFY channel, payload` (or `pg_notify`).
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String

    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}

extension PostgresConnection {
    /// Subscribes this connection to `channel` (`LISTEN`).
    public func listen(_ channel: String) throws {
        let handle = try liveHandle(nil)
        guard let quoted = PQescapeIdentifier(handle, channel, channel.utf8.count) else {
            throw PostgresError(.invalidArgument, "channel name \"\(channel)\" cannot be quoted")
        }
        defer { PQfreemem(quoted) }
        try execute(PostgresQuery(unsafeSQL: "LISTEN \(String(cString: quoted))"))
    }

    /// Sends `payload` on `channel` (delivered at commit when inside a transaction).
    public func notify(_ channel: String, payload: String = "") throws {
        try execute("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Waits up to `timeout` seconds for notifications and returns those that arrived
    /// (an empty array on timeout). Throws `.connectionLost` if the server went away.
    public func waitForNotifications(timeout: TimeInterval) throws -> [PostgresNotification] {
        let handle = try liveHandle(nil)
        var collected = drainNotifications(handle)
        if !collected.isEmpty { return collected }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw PostgresError(.connectionLost, "the connection has no socket") }
        let ready = poll(&descriptor, 1, Int32(max(0, min(timeout, 3600)) * 1000))
        if ready > 0 {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresError(.connectionLost, String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            collected = drainNotifications(handle)
        }
        return collected
    }

    /// Cheap liveness check without a round-trip: reads whatever the server sent (for example
    /// the termination notice of a restart) and reports whether the connection is still usable.
    func probeWithoutRoundTrip() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        // A restarting server sends a FATAL notice and then closes: the first read takes the
        // notice, a later one sees end-of-file and marks the connection bad.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            if PQconsumeInput(handle) != 1 { return false }
            _ = PQisBusy(handle)
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    private func drainNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var out: [PostgresNotification] = []
        while let notice = PQnotifies(handle) {
            out.append(PostgresNotification(channel: String(cString: notice.pointee.relname),
                                            payload: String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return out
    }
}
