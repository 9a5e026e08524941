import AMQPClient
import BuzzKitWire
import BuzzServer
import Foundation

extension Commands {
    static let operationsUsage = """
        usage: buzzkit runs list TENANT [--subscriber ID] [--workflow KEY] [--status STATUS] [--limit N] [--cursor C]
               buzzkit subscriber show|delete TENANT ID
               buzzkit workflow list TENANT | buzzkit workflow retire TENANT KEY
               buzzkit dlq list QUEUE [--limit N]
               buzzkit dlq replay QUEUE [--limit N]
        """

    /// `buzzkit runs …`, `buzzkit subscriber …`, `buzzkit workflow …`, `buzzkit dlq …`: what support and operators
    /// do from a shell, through the same code as the API's management routes.
    static func operations(_ command: String, _ configuration: Configuration, arguments: [String]) throws {
        let runtime = try Runtime(configuration: configuration, push: UnconfiguredPushProvider(), component: "admin")
        defer { runtime.close() }
        let commands = RunCommands(context: runtime.context, broker: runtime.broker, outbox: PostgresOutbox(pool: runtime.pool))
        switch (command, arguments.first) {
        case ("runs", "list") where arguments.count >= 2:
            var query = RunQuery(subscriberId: value("--subscriber", in: arguments), workflowKey: value("--workflow", in: arguments),
                                 status: value("--status", in: arguments), limit: Int(value("--limit", in: arguments) ?? "") ?? 20)
            query.after = try value("--cursor", in: arguments).map { text in
                guard let cursor = RunQuery.Cursor(text: text) else { throw ServerError(.invalidInput, "--cursor is not one this command printed") }
                return cursor
            }
            query.limit = min(max(query.limit, 1), 100)
            let found = try commands.runs(tenantId: arguments[1], query)
            for item in found {
                let summary = item.run.state.summary
                print("\(summary.id)  \(summary.workflow)  \(summary.subscriberId)  \(summary.status.rawValue)  \(summary.steps.last?.name ?? "-")")
            }
            if found.count == query.limit, let last = found.last { print("next: --cursor \(last.cursor.text)") }
        case ("subscriber", "show") where arguments.count == 3:
            guard let profile = try PostgresDirectory(pool: runtime.pool).subscriberProfile(tenantId: arguments[1], id: arguments[2]) else {
                throw ServerError(.notFound, "tenant \(arguments[1]) has no subscriber \(arguments[2])")
            }
            print("\(profile.subscriber.id)  timezone \(profile.subscriber.timezone ?? "(tenant default)")")
            for device in profile.devices {
                print("  …\(device.token.suffix(8))  \(device.platform)  \(device.environment)  \(device.active ? "active" : "inactive")  \(device.authorization ?? "-")")
            }
        case ("subscriber", "delete") where arguments.count == 3:
            try commands.erase(tenantId: arguments[1], subscriberId: arguments[2])
            print("erased \(arguments[2]): its live runs are cancelled on its phones; its runs, devices, properties, acknowledgments and opens are gone")
        case ("workflow", "list") where arguments.count == 2:
            for workflow in try PostgresDirectory(pool: runtime.pool).workflows(tenantId: arguments[1]) {
                print("\(workflow.key)  version \(workflow.version)  updated \(RFC3339.format(workflow.updatedAt))")
            }
        case ("workflow", "retire") where arguments.count == 3:
            guard try PostgresDirectory(pool: runtime.pool).retireWorkflow(tenantId: arguments[1], key: arguments[2], at: Date()) else {
                throw ServerError(.notFound, "tenant \(arguments[1]) has no current workflow \(arguments[2])")
            }
            print("retired \(arguments[2]): no new run starts from it; its live runs go on")
        case ("dlq", "list") where arguments.count >= 2, ("dlq", "replay") where arguments.count >= 2:
            guard let queue = Topology.Queue(rawValue: arguments[1]) else {
                throw ServerError(.invalidInput, "unknown queue \"\(arguments[1])\"; choose from \(Topology.Queue.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let letters = DeadLetters(topology: runtime.topology, amqp: runtime.amqp)
            let limit = Int(value("--limit", in: arguments) ?? "") ?? (arguments.first == "list" ? 20 : .max)
            if arguments.first == "list" {
                for letter in try letters.list(queue, limit: limit) {
                    print("\(letter.messageId ?? "-")  \(letter.routingKey)  \(letter.reason)")
                    print("  \(String(decoding: letter.body.prefix(300), as: UTF8.self))")
                }
            } else {
                print("replayed \(try letters.replay(queue, limit: limit, broker: runtime.broker)) message(s) of \(runtime.topology.deadLetterName(queue))")
            }
        default:
            throw ServerError(.invalidInput, operationsUsage)
        }
    }
}
