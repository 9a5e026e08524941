import Foundation

/// `apns-bench` flags.
struct BenchOptions {
    /// Pushes measured (after the warm-up).
    var pushes = 50_000
    /// Pushes sent before measuring (opens the connections, signs the token).
    var warmup = 2_000
    /// Threads calling `send` at once, as pipeline workers would.
    var workers = 4
    /// Pushes per `send` call.
    var batch = 500
    /// The provider's connection limit.
    var connections = 2
    /// Run the stand-in inside this process instead of as a `buzzkit-apns serve` child.
    var inProcess = false

    static let help = """
    apns-bench: pushes silent plan pushes (docs/contract.md §4) through the real APNsProvider to the APNs
    stand-in over TLS + HTTP/2 on 127.0.0.1, and reports throughput and the provider's CPU per push.

    apns-bench [--pushes N] [--warmup N] [--workers N] [--batch N] [--connections N] [--in-process]

    By default the stand-in runs as a separate process (buzzkit-apns serve, next to this binary), so
    this process's CPU time (getrusage RUSAGE_SELF) is the provider's alone: the libcurl thread plus
    the worker threads that build and wait for batches. The libcurl thread's own CPU clock is shown
    too, and the stand-in's CPU comes from RUSAGE_CHILDREN after it exits.
    Build with -c release to measure.
    """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func number(_ flag: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw Failure("\(flag) needs a positive whole number")
            }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--pushes": pushes = try number(flag)
            case "--warmup": warmup = try number(flag)
            case "--workers": workers = try number(flag)
            case "--batch": batch = try number(flag)
            case "--connections": connections = try number(flag)
            case "--in-process": inProcess = true
            case "--help", "-h":
                print(Self.help)
                exit(0)
            default: throw Failure("unknown flag \(flag)\n\n\(Self.help)")
            }
        }
    }

    /// A bench that cannot run, in words.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
