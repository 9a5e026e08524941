import APNsStandIn
import Foundation

/// Reads `--flag value` pairs and bare `--switch`es from the command line, in order.
struct ArgumentReader {
    private var arguments: [String]

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// The next flag name, or `nil` at the end.
    mutating func nextFlag() throws -> String? {
        guard let first = arguments.first else { return nil }
        arguments.removeFirst()
        guard first.hasPrefix("--") else { throw usage("unexpected argument \"\(first)\"") }
        return first
    }

    /// The value that follows `flag`.
    mutating func value(for flag: String) throws -> String {
        guard let first = arguments.first, !first.hasPrefix("--") else { throw usage("\(flag) needs a value") }
        arguments.removeFirst()
        return first
    }

    /// The value that follows `flag`, as a number within `range`.
    mutating func number<Number: LosslessStringConvertible & Comparable>(
        for flag: String, in range: ClosedRange<Number>
    ) throws -> Number {
        let text = try value(for: flag)
        guard let number = Number(text), range.contains(number) else {
            throw usage("\(flag) must be a number in \(range.lowerBound)…\(range.upperBound), got \"\(text)\"")
        }
        return number
    }

    /// A usage error.
    func usage(_ message: String) -> APNsStandInError {
        APNsStandInError(.invalidConfiguration, context: "read the command line", message: message)
    }

    /// Reads a text file.
    static func readFile(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APNsStandInError(.fileAccess, context: "read \(path)", message: "cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The usage text.
    static let help = """
    buzzkit-apns: a local stand-in for Apple's APNs provider API (HTTP/2 over TLS).

    buzzkit-apns setup --dir DIR [--key-id KID] [--team-id TEAM] [--host NAME]...
        Generates a test CA (DIR/ca.pem), a server certificate (DIR/server.pem, DIR/server-key.pem)
        for localhost and 127.0.0.1 (or each --host), and a provider key pair
        (DIR/AuthKey_<KID>.p8 for the provider, DIR/AuthKey_<KID>.pub.pem for the stand-in).
        Prints the BUZZKIT_APNS_* settings a provider needs.

    buzzkit-apns serve [--dir DIR] [--cert FILE --key FILE] [--jwt-key KID=PUBLIC.pem[:TEAM]]...
                       [--host 127.0.0.1] [--port 2197] [--topic BUNDLE]... [--fail TOKEN=SPEC]...
                       [--rate-429 F] [--rate-500 F] [--latency-ms N] [--max-streams N]
                       [--token-max-age SECONDS] [--no-record] [--log]
        --dir DIR       take server.pem, server-key.pem and every AuthKey_<KID>.pub.pem from DIR
        --jwt-key       a provider public key to verify JWTs with (kid, PEM file, optional team)
        --fail          TOKEN=400|410|429|500|503 (always) or TOKEN=<status>x<k> (first k attempts)
        --rate-429/500  fraction (0…1) of valid pushes answered 429 / 500
        --latency-ms    added before every answer
        --log           print one line per accepted push
        Prints "listening on https://HOST:PORT"; stops on SIGINT/SIGTERM and prints its counters.
    """
}
