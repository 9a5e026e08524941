import AMQPClient
import BuzzServer
import PushDelivery
import Foundation
import PostgresClient
import PushDeliveryTesting

extension BenchSettings {
    /// Drops `schema` and migrates it afresh (every bench phase starts from empty tables).
    func freshSchema(_ schema: String) throws {
        let admin = try PostgresConnection(url: databaseURL)
        try admin.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"))
        admin.close()
        let adminPool = PostgresPool(url: databaseURL, maxConnections: 1)
        defer { adminPool.close() }
        try MigrationRunner(pool: adminPool, schema: schema).migrate(Migration.bundled())
    }

    /// A fresh `schema` and the runtime the in-process pipeline figures share: 24 connections,
    /// 3 worker threads a queue, batches of 200, prefetch 1,000, every queue under `prefix`
    /// declared and empty, pushes to an in-memory provider. Says `what` runs on standard error.
    func pipelineRuntime(_ what: String, schema: String, prefix: String) throws -> (Runtime, InMemoryPushProvider, Topology) {
        FileHandle.standardError.write(Data("\(what)...\n".utf8))
        let push = InMemoryPushProvider(), topology = Topology(prefix: prefix)
        try freshSchema(schema)
        var configuration = Configuration()
        configuration.databaseURL = databaseURL
        configuration.amqpURL = amqpURL
        configuration.databaseSchema = schema
        configuration.databasePoolSize = 24
        configuration.workerThreads = 3
        configuration.batchSize = 200
        configuration.prefetch = 1000
        if let linger = ProcessInfo.processInfo.environment["BUZZKIT_BATCH_LINGER_MS"].flatMap(Int.init) {
            configuration.batchLingerMilliseconds = linger
        }
        if let delay = ProcessInfo.processInfo.environment["BUZZKIT_WINDOW_COMPLETION_DELAY_SECONDS"].flatMap(Double.init) {
            configuration.completion.delaySeconds = delay
        }
        // `BUZZKIT_LANE_TRIGGER_SENDS=false` compares the plans' own queue hop.
        if ProcessInfo.processInfo.environment["BUZZKIT_LANE_TRIGGER_SENDS"] == "false" { configuration.lanes.triggerSends = false }
        let runtime = try Runtime(configuration: configuration, push: push, component: "bench", topology: topology)
        let setup = try runtime.amqp.connect().connection
        defer { setup.close() }
        try topology.declare(on: setup)
        for queue in Topology.Queue.allCases { try setup.purgeQueue(topology.name(queue)) }
        return (runtime, push, topology)
    }
}
