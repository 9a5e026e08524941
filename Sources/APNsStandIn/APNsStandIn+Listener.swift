import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension APNsStandIn {
    /// Binds the listening socket and starts accepting connections on a dedicated thread.
    ///
    /// - Throws: ``APNsStandInError`` `.system` when the address cannot be bound.
    public func start() throws {
        try lock.withLock {
            guard !running, !stopping else {
                throw APNsStandInError(.invalidConfiguration, context: "start", message: "already started")
            }
            // A peer that closes mid-write must not kill the process (OpenSSL writes with write(2)).
            signal(SIGPIPE, SIG_IGN)
            let fd = try APNsStandInError.checkSystem(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0), "socket")
            do {
                var one: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = configuration.port.bigEndian
                guard inet_pton(AF_INET, configuration.host, &address.sin_addr) == 1 else {
                    throw APNsStandInError(.invalidConfiguration, context: "listen",
                                           message: "\(configuration.host) is not an IPv4 address")
                }
                let where_ = "bind \(configuration.host):\(configuration.port)"
                _ = try withUnsafePointer(to: &address) { pointer in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        try APNsStandInError.checkSystem(bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)), where_)
                    }
                }
                try APNsStandInError.checkSystem(listen(fd, 128), "listen")
                var bound = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                _ = withUnsafeMutablePointer(to: &bound) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
                boundPort = UInt16(bigEndian: bound.sin_port)
            } catch {
                close(fd)
                throw error
            }
            listenFD = fd
            running = true
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "apns-standin-accept"
        thread.start()
    }

    /// Stops accepting, sends GOAWAY on every connection and waits (up to 5 s) for their
    /// threads to end. Idempotent.
    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            let was = running && !stopping
            stopping = true
            if was { _ = shutdown(listenFD, Int32(SHUT_RDWR)) }
            // SHUT_RD wakes the connection's poll; the thread then writes GOAWAY and closes.
            for connection in connections.values { _ = shutdown(connection.fd, Int32(SHUT_RD)) }
            return was
        }
        guard wasRunning else { return }
        acceptStopped.wait()
        _ = connectionThreads.wait(timeout: .now() + 5)
        lock.withLock {
            close(listenFD)
            listenFD = -1
        }
    }

    private func acceptLoop() {
        defer { acceptStopped.signal() }
        let fd = lock.withLock { listenFD }
        while !isStopping {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 250) > 0, !isStopping else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            admit(client)
        }
    }

    /// Registers a new connection and starts its thread, or closes it when over the limit.
    private func admit(_ client: Int32) {
        let number: Int? = lock.withLock {
            stats.tcpConnections += 1
            guard !stopping, connections.count < configuration.maxConnections else {
                stats.failedHandshakes += 1
                return nil
            }
            connectionCount += 1
            return connectionCount
        }
        guard let number, let connection = try? StandInConnection(fd: client, number: number, server: self, tls: tls) else {
            close(client)
            return
        }
        lock.withLock { connections[number] = connection }
        connectionThreads.enter()
        let thread = Thread { [connectionThreads] in
            connection.run()
            connectionThreads.leave()
        }
        thread.name = "apns-standin-conn-\(number)"
        thread.start()
    }

    /// A connection's thread is done: forget it and close its socket (in that order, under
    /// the lock, so ``stop()`` never shuts down a reused descriptor).
    func connectionEnded(_ connection: StandInConnection) {
        lock.withLock {
            connections.removeValue(forKey: connection.number)
            close(connection.fd)
        }
    }

    func countFailedHandshake() {
        lock.withLock { stats.failedHandshakes += 1 }
    }

    func countEstablished() {
        lock.withLock { stats.tlsConnections += 1 }
    }
}
