/// Which pending BuzzKit notifications each event name cancels: built from the plans'
/// `cancelOn` lists and persisted with the ``PlanBook``, so ``BuzzKitClient/track(_:properties:)``
/// can remove them offline and after a restart.
public struct CancelOnRegistry: Sendable, Hashable, Codable {
    /// Local ids by event name, each list sorted.
    public private(set) var localIdsByEvent: [String: [String]] = [:]

    /// An empty registry.
    public init() {}

    /// Registers `localId` under every name in `eventNames`.
    public mutating func register(_ eventNames: [String], localId: String) {
        for name in Set(eventNames) where !name.isEmpty {
            var ids = localIdsByEvent[name] ?? []
            if !ids.contains(localId) {
                ids.append(localId)
                ids.sort()
            }
            localIdsByEvent[name] = ids
        }
    }

    /// The local ids registered under `eventName`.
    public func localIds(for eventName: String) -> [String] {
        localIdsByEvent[eventName] ?? []
    }

    /// Removes `localId` from every name, dropping names left empty.
    public mutating func remove(localId: String) {
        for (name, ids) in localIdsByEvent where ids.contains(localId) {
            let rest = ids.filter { $0 != localId }
            localIdsByEvent[name] = rest.isEmpty ? nil : rest
        }
    }

    /// The names `localId` is registered under, sorted.
    public func eventNames(for localId: String) -> [String] {
        localIdsByEvent.filter { $0.value.contains(localId) }.keys.sorted()
    }

    /// Every registered event name, sorted.
    public var eventNames: [String] {
        localIdsByEvent.keys.sorted()
    }
}
