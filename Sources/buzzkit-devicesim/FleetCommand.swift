import APNsStandIn
import DeviceSimulator
import Foundation

/// Parses `fleet` flags, starts the APNs stand-in from `--apns-dir` (made by
/// `buzzkit-apns setup`), runs the fleet and prints the report. Exit status 1 on any violation.
struct FleetCommand {
    static let usage = """
        usage: buzzkit-devicesim fleet --api URL --keys FILE --apns-dir DIR [--apns-host 127.0.0.1] [--apns-port 2197] [--phones N]
               [--lead SECONDS] [--waves N] [--interval SECONDS] [--mix BEHAVIOUR,…] [--offline S] [--seed N]
               [--report-json FILE]
          --waves       the subscribers are dealt into N waves, posted --interval seconds apart (default 1)
          --mix         behaviours dealt out in turn (default: all): \(Behaviour.allCases.map(\.rawValue).joined(separator: ","))
          --keys FILE   the JSON printed by `buzzkit tenant create NAME --json`
        """

    var api = URL(string: "http://127.0.0.1:8080")!
    var keysFile = ""
    var apnsDirectory = ""
    var apnsHost = "127.0.0.1"
    var apnsPort: UInt16 = 2197
    var phones = 50
    var lead = 20.0
    var waves = 1
    var interval = 20.0
    var mix = Behaviour.allCases
    var offline = 2.0
    var reportJSON: String?
    var seed: UInt64 = 7

    init(arguments: [String], environment: [String: String]) throws {
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let next = iterator.next() else { throw SimulatorError("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        while let flag = iterator.next() {
            switch flag {
            case "--api": api = URL(string: try value(flag)) ?? api
            case "--keys": keysFile = try value(flag)
            case "--apns-dir": apnsDirectory = try value(flag)
            case "--apns-host": apnsHost = try value(flag)
            case "--apns-port": apnsPort = UInt16(try value(flag)) ?? apnsPort
            case "--phones": phones = Int(try value(flag)) ?? phones
            case "--lead": lead = Double(try value(flag)) ?? lead
            case "--waves": waves = max(1, Int(try value(flag)) ?? waves)
            case "--interval": interval = Double(try value(flag)) ?? interval
            case "--offline": offline = Double(try value(flag)) ?? offline
            case "--report-json": reportJSON = try value(flag)
            case "--seed": seed = UInt64(try value(flag)) ?? seed
            case "--mix":
                mix = try value(flag).split(separator: ",").map { name in
                    guard let behaviour = Behaviour(rawValue: String(name)) else { throw SimulatorError("unknown behaviour \(name)\n\(Self.usage)") }
                    return behaviour
                }
            default: throw SimulatorError("unknown flag \(flag)\n\(Self.usage)")
            }
        }
        guard !keysFile.isEmpty, !apnsDirectory.isEmpty else { throw SimulatorError(Self.usage) }
    }

    func run() throws -> Int32 {
        let keys = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: keysFile))) as? [String: String] ?? [:]
        guard let secret = keys["secretKey"], let publishable = keys["publishableKey"], let signing = keys["signingSecret"] else {
            throw SimulatorError("\(keysFile) lacks secretKey, publishableKey or signingSecret")
        }
        let router = PushRouter()
        let standIn = try StandInLoader.start(directory: apnsDirectory, host: apnsHost, port: apnsPort, router: router)
        defer { standIn.stop() }
        var configuration = FleetConfiguration(apiBaseURL: api, secretKey: secret, publishableKey: publishable, signingSecret: signing,
                                               subscribers: phones, mix: mix, leadSeconds: lead, 
                                               offlineSeconds: offline, progress: { line in
                                                   FileHandle.standardError.write(Data("\r\(line)   ".utf8))
                                               })
        configuration.seed = seed
        configuration.waves = waves
        configuration.waveInterval = interval
        let fleet = Fleet(configuration: configuration, router: router)
        let outcome = Result { try waitFor { try await fleet.run() } }
        FileHandle.standardError.write(Data("\n".utf8))
        let report = try outcome.get()
        print(report.text)
        if let reportJSON {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(report).write(to: URL(fileURLWithPath: reportJSON))
        }
        return report.violations.isEmpty ? 0 : 1
    }
}
