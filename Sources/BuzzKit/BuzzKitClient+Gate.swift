extension BuzzKitClient {
    /// Runs `body` when no other state change is running, first come first served.
    ///
    /// Never await a flush or ``settle()`` inside: the flush's own follow-up needs the gate.
    func withGate<Result>(_ body: () async -> Result) async -> Result {
        await acquireGate()
        defer { releaseGate() }
        return await body()
    }

    private func acquireGate() async {
        guard gateBusy else {
            gateBusy = true
            return
        }
        await withCheckedContinuation { gateWaiters.append($0) }
    }

    private func releaseGate() {
        if gateWaiters.isEmpty {
            gateBusy = false
        } else {
            gateWaiters.removeFirst().resume()  // hand the gate over; it stays busy
        }
    }
}
