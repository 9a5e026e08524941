import Foundation

extension BuzzKitClient {
    /// One caller waiting for the gate.
    struct GateWaiter {
        let id: UInt64
        /// Goes ahead of every ordinary waiter (after the urgent ones already waiting).
        let urgent: Bool
        /// Resumed with `true` when the gate is handed over, `false` when its deadline passed.
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Runs `body` when no other state change is running, first come first served.
    ///
    /// Never await a flush or ``settle()`` inside: the flush's own follow-up needs the gate.
    /// `urgent`: goes ahead of the ordinary waiters (see ``withGate(until:urgent:_:)``).
    func withGate<Result>(urgent: Bool = false, _ body: () async -> Result) async -> Result {
        _ = await acquireGate(until: nil, urgent: urgent)
        defer { releaseGate() }
        return await body()
    }

    /// Runs `body` inside the gate if it can be had by `deadline`; `nil` (and `body` not run)
    /// otherwise. A wake uses this so that a queue of state changes ahead of it (a crowded
    /// phone's burst of pushes and syncs) cannot keep it from answering iOS in time.
    /// `urgent`: goes ahead of the ordinary waiters (a cancel, a fallback's arrival: short,
    /// and what keeps a notification from showing wrongly).
    func withGate<Result>(until deadline: Date, urgent: Bool = false, _ body: () async -> Result) async -> Result? {
        guard await acquireGate(until: deadline, urgent: urgent) else { return nil }
        defer { releaseGate() }
        return await body()
    }

    private func acquireGate(until deadline: Date?, urgent: Bool) async -> Bool {
        guard gateBusy else {
            gateBusy = true
            return true
        }
        if let deadline, clock.now >= deadline { return false }
        nextGateWaiter += 1
        let id = nextGateWaiter
        let clock = self.clock
        let expiry = deadline.map { deadline in
            Task { [weak self] in
                try? await clock.sleep(until: deadline)
                guard !Task.isCancelled else { return }
                await self?.expireGateWaiter(id)
            }
        }
        let acquired = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = GateWaiter(id: id, urgent: urgent, continuation: continuation)
            if urgent {
                gateWaiters.insert(waiter, at: gateWaiters.firstIndex { !$0.urgent } ?? gateWaiters.endIndex)
            } else {
                gateWaiters.append(waiter)
            }
        }
        expiry?.cancel()
        return acquired
    }

    private func expireGateWaiter(_ id: UInt64) {
        guard let index = gateWaiters.firstIndex(where: { $0.id == id }) else { return }  // handed the gate already
        gateWaiters.remove(at: index).continuation.resume(returning: false)
    }

    private func releaseGate() {
        if gateWaiters.isEmpty {
            gateBusy = false
        } else {
            gateWaiters.removeFirst().continuation.resume(returning: true)  // hand the gate over; it stays busy
        }
    }
}
