import Foundation

/// Model of Network's `NWPath`: the part the SDK reads.
public struct NWPath: Sendable {
    /// Model of `NWPath.Status`.
    public enum Status: Sendable, Equatable {
        case satisfied, unsatisfied, requiresConnection
    }

    /// Whether the path can send.
    public let status: Status
}

/// A simulated phone's network as its path monitors see it: up or down. The driver flips it.
public final class ModelNetwork: @unchecked Sendable {
    private let lock = NSLock()
    private var up: Bool
    private var monitors: [ObjectIdentifier: NWPathMonitor] = [:]

    /// A network, up or down.
    public init(up: Bool = true) { self.up = up }

    /// Whether it is up.
    public var isUp: Bool {
        lock.lock()
        defer { lock.unlock() }
        return up
    }

    /// The network comes up or goes down; every started monitor is told, on its queue.
    public func set(up: Bool) {
        lock.lock()
        let changed = self.up != up
        self.up = up
        let told = changed ? Array(monitors.values) : []
        lock.unlock()
        for monitor in told { monitor.report(NWPath(status: up ? .satisfied : .unsatisfied)) }
    }

    func add(_ monitor: NWPathMonitor) {
        lock.lock()
        monitors[ObjectIdentifier(monitor)] = monitor
        lock.unlock()
    }

    func remove(_ monitor: NWPathMonitor) {
        lock.lock()
        monitors[ObjectIdentifier(monitor)] = nil
        lock.unlock()
    }
}

/// Model of Network's `NWPathMonitor`: reports the path once when started and again at each
/// change, on the queue given to `start(queue:)` (Apple: "The monitor calls the update
/// handler ... when the path changes").
public final class NWPathMonitor: @unchecked Sendable {
    private static let fallback = ModelNetwork()
    private let network: ModelNetwork
    private let lock = NSLock()
    private var queue: DispatchQueue?
    private var handler: (@Sendable (NWPath) -> Void)?

    /// A monitor of the process's network (in the model, one that is always up).
    public convenience init() { self.init(modelNetwork: Self.fallback) }

    /// A monitor of one simulated phone's network (the model's own initializer).
    public init(modelNetwork: ModelNetwork) { network = modelNetwork }

    /// Called with each new path.
    public var pathUpdateHandler: (@Sendable (NWPath) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return handler }
        set { lock.lock(); handler = newValue; lock.unlock() }
    }

    /// The path now.
    public var currentPath: NWPath { NWPath(status: network.isUp ? .satisfied : .unsatisfied) }

    /// Starts reporting on `queue`.
    public func start(queue: DispatchQueue) {
        lock.lock()
        self.queue = queue
        lock.unlock()
        network.add(self)
        report(currentPath)
    }

    /// Stops reporting.
    public func cancel() {
        network.remove(self)
        lock.lock()
        queue = nil
        lock.unlock()
    }

    func report(_ path: NWPath) {
        lock.lock()
        let (queue, handler) = (self.queue, self.handler)
        lock.unlock()
        guard let queue, let handler else { return }
        queue.async { handler(path) }
    }
}
