import Foundation

/// Settings shared by every BuzzKit process. `main` reads them from the environment with
/// ``init(environment:)``; everything else receives this struct.
///
/// | Variable | Default | Meaning |
/// |---|---|---|
/// | `BUZZKIT_DATABASE_URL` | `postgres://postgres@127.0.0.1:55432/buzzkit` | PostgreSQL URL |
/// | `BUZZKIT_AMQP_URL` | `amqp://guest:guest@127.0.0.1:55672/%2f` | RabbitMQ URL |
/// | `BUZZKIT_HTTP_PORT` | `8080` | API port |
/// | `BUZZKIT_DB_POOL_SIZE` | `8` | PostgreSQL connections per process |
/// | `BUZZKIT_DB_SCHEMA` | `public` | schema that holds BuzzKit's tables |
/// | `BUZZKIT_PREFETCH` | `200` | unacknowledged messages per consumer |
/// | `BUZZKIT_SHUTDOWN_GRACE_SECONDS` | `20` | drain time after SIGTERM |
/// | `BUZZKIT_LOG_FORMAT` | `json` | `json` or `human` |
public struct Configuration: Sendable, Equatable {
    public var databaseURL: String
    public var amqpURL: String
    public var httpPort: Int
    public var databasePoolSize: Int
    public var databaseSchema: String
    public var prefetch: Int
    public var shutdownGraceSeconds: Double
    public var logFormat: String

    /// The documented defaults (they match `scripts/services.sh`).
    public init() {
        databaseURL = "postgres://postgres@127.0.0.1:55432/buzzkit"
        amqpURL = "amqp://guest:guest@127.0.0.1:55672/%2f"
        httpPort = 8080
        databasePoolSize = 8
        databaseSchema = "public"
        prefetch = 200
        shutdownGraceSeconds = 20
        logFormat = "json"
    }

    /// Reads `BUZZKIT_*` variables over the defaults. Call it from `main` only.
    public init(environment: [String: String]) throws {
        self.init()
        func string(_ key: String, _ value: inout String) {
            if let text = environment[key], !text.isEmpty { value = text }
        }
        func int(_ key: String, _ value: inout Int) throws {
            guard let text = environment[key], !text.isEmpty else { return }
            guard let number = Int(text) else {
                throw ServerError(.configuration, "\(key) must be a whole number, got \"\(text)\"", field: key)
            }
            value = number
        }
        string("BUZZKIT_DATABASE_URL", &databaseURL)
        string("BUZZKIT_AMQP_URL", &amqpURL)
        try int("BUZZKIT_HTTP_PORT", &httpPort)
        try int("BUZZKIT_DB_POOL_SIZE", &databasePoolSize)
        string("BUZZKIT_DB_SCHEMA", &databaseSchema)
        try int("BUZZKIT_PREFETCH", &prefetch)
        if let text = environment["BUZZKIT_SHUTDOWN_GRACE_SECONDS"], !text.isEmpty {
            guard let seconds = Double(text) else {
                throw ServerError(.configuration, "BUZZKIT_SHUTDOWN_GRACE_SECONDS must be a number of seconds, got \"\(text)\"",
                                  field: "BUZZKIT_SHUTDOWN_GRACE_SECONDS")
            }
            shutdownGraceSeconds = seconds
        }
        string("BUZZKIT_LOG_FORMAT", &logFormat)
        try validate()
    }

    /// Checks every field and names the first wrong one.
    public func validate() throws {
        guard databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://") else {
            throw ServerError(.configuration, "must be a postgres:// URL, got \"\(databaseURL)\"", field: "BUZZKIT_DATABASE_URL")
        }
        guard amqpURL.hasPrefix("amqp://") else {
            throw ServerError(.configuration, "must be an amqp:// URL", field: "BUZZKIT_AMQP_URL")
        }
        guard (1...65535).contains(httpPort) else {
            throw ServerError(.configuration, "must be a port between 1 and 65535, got \(httpPort)", field: "BUZZKIT_HTTP_PORT")
        }
        guard (1...500).contains(databasePoolSize) else {
            throw ServerError(.configuration, "must be between 1 and 500, got \(databasePoolSize)", field: "BUZZKIT_DB_POOL_SIZE")
        }
        guard !databaseSchema.isEmpty, databaseSchema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ServerError(.configuration, "may only contain letters, digits and _, got \"\(databaseSchema)\"", field: "BUZZKIT_DB_SCHEMA")
        }
        guard (1...65535).contains(prefetch) else {
            throw ServerError(.configuration, "must be between 1 and 65535, got \(prefetch)", field: "BUZZKIT_PREFETCH")
        }
        guard shutdownGraceSeconds >= 0 && shutdownGraceSeconds <= 3600 else {
            throw ServerError(.configuration, "must be between 0 and 3600 seconds", field: "BUZZKIT_SHUTDOWN_GRACE_SECONDS")
        }
        guard logFormat == "json" || logFormat == "human" else {
            throw ServerError(.configuration, "must be json or human, got \"\(logFormat)\"", field: "BUZZKIT_LOG_FORMAT")
        }
    }
}
