import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import BuzzStore
import Foundation
import PushDelivery

/// What every stage needs: storage, topology, the push provider, the clock and metrics.
public struct PipelineContext: Sendable {
    public var store: any Store
    public var topology: Topology
    public var push: any PushProvider
    public var clock: any Clock
    public var metrics: Metrics
    /// Where stages report failures (one JSON line each).
    public var log = Log(format: .json, component: "pipeline")
    /// Which lane each message of a run takes, and the least lead a plan is sent with.
    public var lanes = LaneSettings()
    /// Pipeline messages a stage packs into one outbox row and broker message (a worker's
    /// batch size, `BUZZKIT_BATCH_SIZE`).
    public var packSize = 100

    public init(store: any Store, topology: Topology, push: any PushProvider, clock: any Clock = SystemClock(), metrics: Metrics = Metrics()) {
        self.store = store
        self.topology = topology
        self.push = push
        self.clock = clock
        self.metrics = metrics
    }

    package var actions: RunActions { RunActions(topology: topology, lanes: lanes, packSize: packSize) }
}
