import Foundation

/// A parsed `amqp://user:password@host:port/vhost?heartbeat=10` URL.
public struct AMQPURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var vhost: String
    /// Heartbeat interval in seconds (0 turns heartbeats off).
    public var heartbeat: Int
    /// Seconds allowed for the TCP connect and login.
    public var connectTimeout: Int

    public init(host: String = "127.0.0.1", port: Int = 5672, user: String = "guest", password: String = "guest",
                vhost: String = "/", heartbeat: Int = 10, connectTimeout: Int = 5) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.vhost = vhost
        self.heartbeat = heartbeat
        self.connectTimeout = connectTimeout
    }

    /// Parses the URL; `%2f` in the path is the default vhost `/`.
    public init(_ string: String) throws {
        guard let components = URLComponents(string: string), components.scheme == "amqp" else {
            // Not echoed: the value may hold a password.
            throw AMQPError(.invalidArgument, "the value is not an amqp:// URL (expected amqp://user:password@host:port/vhost)")
        }
        self.init()
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5672
        user = components.user.map { $0.removingPercentEncoding ?? $0 } ?? "guest"
        password = components.password.map { $0.removingPercentEncoding ?? $0 } ?? "guest"
        let rawPath = components.percentEncodedPath
        if rawPath.isEmpty || rawPath == "/" {
            vhost = "/"
        } else {
            vhost = String(rawPath.dropFirst()).removingPercentEncoding ?? String(rawPath.dropFirst())
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "heartbeat":
                guard let value = item.value.flatMap(Int.init), value >= 0 else {
                    throw AMQPError(.invalidArgument, "heartbeat must be a whole number of seconds, got \(item.value ?? "nothing")")
                }
                heartbeat = value
            case "connection_timeout", "connect_timeout":
                guard let value = item.value.flatMap(Int.init), value > 0 else {
                    throw AMQPError(.invalidArgument, "connect_timeout must be a positive number of seconds")
                }
                connectTimeout = value
            default:
                continue
            }
        }
    }

    /// The URL without the password, for logs.
    public var redacted: String { "amqp://\(user):***@\(host):\(port)/\(vhost == "/" ? "%2f" : vhost)" }
}
