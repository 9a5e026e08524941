import DeviceSimulator
import Foundation

/// `buzzkit-devicesim chaos`: the fault drill (see `FaultDrill`). Starts BuzzKit's processes
/// itself from `--binary`, with the APNs stand-in in this process; restarts PostgreSQL and
/// RabbitMQ through `--services`. Exit status 1 when the drill finds a violation.
struct ChaosCommand {
    static let usage = """
        usage: buzzkit-devicesim chaos --binary PATH/buzzkit --services scripts/services.sh [--phones 120] [--waves 12]
               [--interval 6] [--lead 10] [--rounds 1] [--pause 5] [--seed N] [--port 18580] [--work-dir DIR] [--replicas 1]
               [--faults kill:trigger,kill:plan-dispatch,kill:ack-ingest,kill:fallback-check,pause,postgres,rabbitmq
                         | kill-rabbitmq-leader,kill-postgres-primary | cluster]
          BUZZKIT_DATABASE_URL and BUZZKIT_AMQP_URL name the services; the cluster faults (and --faults cluster,
          the whole cluster drill) need `scripts/services.sh cluster-start`'s services.
        """

    var configuration: FaultDrillConfiguration

    init(arguments: [String], environment: [String: String]) throws {
        var binary = "", services = ""
        var values: [String: String] = [:]
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard flag.hasPrefix("--"), let value = iterator.next() else { throw SimulatorError("\(flag) needs a value\n\(Self.usage)") }
            switch flag {
            case "--binary": binary = value
            case "--services": services = value
            case "--phones", "--waves", "--interval", "--lead", "--rounds", "--pause", "--seed", "--port", "--work-dir", "--faults", "--replicas":
                values[String(flag.dropFirst(2))] = value
            default: throw SimulatorError("unknown flag \(flag)\n\(Self.usage)")
            }
        }
        guard !binary.isEmpty, !services.isEmpty else { throw SimulatorError(Self.usage) }
        let tag = "chaos_" + String(UUID().uuidString.prefix(8)).lowercased()
        configuration = FaultDrillConfiguration(
            binary: binary, servicesScript: services,
            databaseURL: environment["BUZZKIT_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:55432/buzzkit",
            amqpURL: environment["BUZZKIT_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:55672/%2f",
            workDirectory: values["work-dir"] ?? NSTemporaryDirectory() + tag, tag: tag, httpPort: Int(values["port"] ?? "") ?? 18_580)
        func number(_ key: String) throws -> Double? {
            guard let text = values[key] else { return nil }
            guard let value = Double(text), value >= 0 else { throw SimulatorError("--\(key) wants a number, got \(text)") }
            return value
        }
        if let v = try number("phones") { configuration.subscribers = Int(v) }
        if let v = try number("waves") { configuration.waves = Int(v) }
        if let v = try number("interval") { configuration.waveInterval = v }
        if let v = try number("lead") { configuration.lead = v }
        if let v = try number("replicas") { configuration.workerReplicas = Int(v) }
        if let v = try number("seed") { configuration.seed = UInt64(v) }
        configuration.faults = Fault.standardDrill(rounds: Int(try number("rounds") ?? 1), schedulerPause: try number("pause") ?? 5)
        if values["faults"] == "cluster" {
            configuration.faults = Fault.clusterDrill
        } else if let list = values["faults"] {
            configuration.faults = try list.split(separator: ",").map { try Self.fault(String($0), pause: try number("pause") ?? 5) }
        }
        configuration.progress = { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
    }

    static func fault(_ text: String, pause: Double) throws -> Fault {
        switch text {
        case "pause": return .pauseScheduler(seconds: pause)
        case "postgres": return .restartPostgres
        case "rabbitmq": return .restartRabbitMQ
        case "kill-rabbitmq-leader": return .killRabbitMQLeader
        case "kill-postgres-primary": return .killPostgresPrimary
        case "cluster": throw SimulatorError("\"cluster\" is a drill of its own: --faults cluster alone")
        default:
            guard text.hasPrefix("kill:") else { throw SimulatorError("unknown fault \(text)\n\(usage)") }
            return .killWorker(queue: String(text.dropFirst(5)))
        }
    }

    func run() throws -> Int32 {
        let drill = FaultDrill(configuration: configuration)
        let report = try waitFor { try await drill.run() }
        print(report.text)
        return report.violations.isEmpty ? 0 : 1
    }
}
