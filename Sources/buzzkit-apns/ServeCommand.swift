import APNsStandIn
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `buzzkit-apns serve`: runs the stand-in until SIGINT or SIGTERM.
struct ServeCommand {
    var configuration: APNsStandInConfiguration
    var log = false

    /// Parses the flags after `serve` and reads the files they name.
    init(arguments: [String]) throws {
        var reader = ArgumentReader(arguments)
        var certificateFile: String?
        var keyFile: String?
        var keys: [String: APNsStandInConfiguration.VerificationKey] = [:]
        var plan = APNsFailurePlan()
        var settings: [(inout APNsStandInConfiguration) -> Void] = []
        while let flag = try reader.nextFlag() {
            switch flag {
            case "--dir":
                let directory = try reader.value(for: flag)
                certificateFile = (directory as NSString).appendingPathComponent("server.pem")
                keyFile = (directory as NSString).appendingPathComponent("server-key.pem")
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                for name in names where name.hasPrefix("AuthKey_") && name.hasSuffix(".pub.pem") {
                    let kid = String(name.dropFirst("AuthKey_".count).dropLast(".pub.pem".count))
                    let pem = try ArgumentReader.readFile((directory as NSString).appendingPathComponent(name))
                    keys[kid] = .init(teamID: nil, publicKeyPEM: pem)
                }
            case "--cert": certificateFile = try reader.value(for: flag)
            case "--key": keyFile = try reader.value(for: flag)
            case "--jwt-key":
                let spec = try reader.value(for: flag)
                let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw reader.usage("--jwt-key takes KID=PUBLIC.pem[:TEAM]") }
                let fileAndTeam = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
                keys[parts[0]] = .init(teamID: fileAndTeam.count == 2 ? fileAndTeam[1] : nil,
                                       publicKeyPEM: try ArgumentReader.readFile(fileAndTeam[0]))
            case "--host":
                let host = try reader.value(for: flag)
                settings.append { $0.host = host }
            case "--port":
                let port: UInt16 = try reader.number(for: flag, in: 0...65535)
                settings.append { $0.port = port }
            case "--topic":
                let topic = try reader.value(for: flag)
                settings.append { $0.allowedTopics = ($0.allowedTopics ?? []).union([topic]) }
            case "--fail":
                let rule = try APNsFailurePlan.parseRule(try reader.value(for: flag), now: Date())
                plan.set(rule.rule, forToken: rule.token)
            case "--rate-429": plan.tooManyRequestsRate = try reader.number(for: flag, in: 0.0...1.0)
            case "--rate-500": plan.internalServerErrorRate = try reader.number(for: flag, in: 0.0...1.0)
            case "--latency-ms": plan.latency = Double(try reader.number(for: flag, in: 0...60_000) as Int) / 1000
            case "--max-streams":
                let streams: Int = try reader.number(for: flag, in: 1...100_000)
                settings.append { $0.maxConcurrentStreams = streams }
            case "--token-max-age":
                let seconds: Double = try reader.number(for: flag, in: 1.0...86_400.0)
                settings.append { $0.tokenMaxAge = seconds }
            case "--no-record": settings.append { $0.recordPushes = false }
            case "--log": log = true
            default: throw reader.usage("unknown flag \(flag) for serve")
            }
        }
        guard let certificateFile, let keyFile else { throw reader.usage("serve needs --dir DIR or --cert and --key") }
        guard !keys.isEmpty else { throw reader.usage("serve needs at least one --jwt-key (or AuthKey_*.pub.pem in --dir)") }
        // The stand-in generates the CA itself; from files, only the server's half is needed.
        let credentials = StandInCredentials(caCertificatePEM: "",
                                             serverCertificatePEM: try ArgumentReader.readFile(certificateFile),
                                             serverPrivateKeyPEM: try ArgumentReader.readFile(keyFile))
        configuration = APNsStandInConfiguration(credentials: credentials, keys: keys)
        configuration.failures = plan
        for apply in settings { apply(&configuration) }
    }

    /// Serves until SIGINT/SIGTERM, then prints the counters.
    func run() throws {
        // Block the stop signals in every thread (threads inherit the mask) and wait for them here.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let standIn = try APNsStandIn(configuration: configuration)
        if log {
            standIn.onPush = { push in
                print("push \(push.apnsId.uuidString) \(push.pushType)/\(push.priority) \(push.topic) "
                      + "\(push.deviceToken) \(push.payload.count)B conn=\(push.connection)")
                fflush(nil)
            }
        }
        try standIn.start()
        print("buzzkit-apns listening on \(standIn.baseURL)")
        fflush(nil)
        var received: Int32 = 0
        sigwait(&signals, &received)
        standIn.stop()
        print("buzzkit-apns stopped: \(standIn.statistics.summary)")
        fflush(nil)
    }
}
