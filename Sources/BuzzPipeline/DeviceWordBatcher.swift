import BuzzServerCore
import BuzzStore
import Foundation

/// Devices' words (`$local.scheduled`, `$local.released`) from requests that arrive together,
/// recorded in one transaction a tenant: group commit.
///
/// Every phone acknowledges its own plan in a request of its own, so the API's requests carry
/// a word or two each, and recording each in a transaction of its own (a locking read of the
/// plan, an insert, a commit that waits for the WAL) cost PostgreSQL about 500 µs a request
/// under sustained windows. Here the first caller with nothing being recorded records at once,
/// its own words and whatever is waiting; callers that arrive meanwhile wait for that
/// transaction to end and are recorded together in the next one. An idle server records each
/// request at once; a busy one records as many as arrived during one transaction (at most
/// ``maxWords`` words), so the answer waits at most for one transaction before its own.
///
/// Each caller still returns only once its own words are committed, so an acknowledgment
/// counts from its `202` as before, and each is told only of its own plans (late, or of a
/// cancelled run). A tenant's transaction that fails is tried again request by request, so one
/// request's refused value fails that request alone; an outage fails them all, and nothing of
/// them was recorded.
public final class DeviceWordBatcher: @unchecked Sendable {
    /// One caller's words and, once recorded, its answer.
    public final class Entry: @unchecked Sendable {
        public let tenantId: String
        public let facts: [DeviceAcknowledgment]
        /// Where erased subscribers are looked up, for a device's request: its words are then
        /// refused when their subscriber was erased (nil: a server's, never refused).
        public let erasures: (any Directory)?
        public fileprivate(set) var result: Result<DeviceWordAnswer, any Error>?
        /// Set under the batcher's lock once the transaction that took this entry has ended:
        /// from then on ``result`` is written and is read by its caller alone.
        fileprivate var settled = false

        public init(tenantId: String, facts: [DeviceAcknowledgment], erasures: (any Directory)? = nil) {
            self.tenantId = tenantId
            self.facts = facts
            self.erasures = erasures
        }
    }

    /// Words recorded in one transaction at most (a request holds up to 1,000 events).
    public let maxWords: Int
    private let condition = NSCondition()
    private var waiting: [Entry] = []
    private var recording = false

    public init(maxWords: Int = 1000) {
        self.maxWords = max(1, maxWords)
    }

    /// Records `facts` of `tenantId` with whatever other callers' words are waiting, through
    /// `recordTogether` (called by one caller at a time, with the entries it is to settle), and
    /// returns this caller's answer once its words are committed.
    public func record(tenantId: String, _ facts: [DeviceAcknowledgment], refusingErasedIn erasures: (any Directory)? = nil,
                       recordTogether: ([Entry]) -> Void) throws -> DeviceWordAnswer {
        let entry = Entry(tenantId: tenantId, facts: facts, erasures: erasures)
        condition.lock()
        waiting.append(entry)
        // An entry's result is written by the caller recording it, outside the lock; so it is
        // read only once its transaction has ended (`settled`, set under the lock after the
        // results are written). The caller returns then, whether or not another transaction
        // has begun since: waiting for no one to be recording instead left a caller whose
        // words were committed asleep for seconds under a steady stream of requests (the next
        // recorder nearly always took the lock first).
        while !entry.settled {
            if recording { condition.wait(); continue }
            recording = true
            let batch = takeBatch()
            condition.unlock()
            recordTogether(batch)
            condition.lock()
            for taken in batch {
                if taken.result == nil {
                    taken.result = .failure(ServerError(.internal, "device words were handed over to be recorded and not settled"))
                }
                taken.settled = true
            }
            recording = false
            condition.broadcast()
        }
        condition.unlock()
        return try entry.result!.get()
    }

    /// Callers waiting for a transaction (for tests).
    var waitingCount: Int { condition.lock(); defer { condition.unlock() }; return waiting.count }

    /// The oldest waiting entries, up to ``maxWords`` words (at least one entry).
    private func takeBatch() -> [Entry] {
        var words = 0, count = 0
        for entry in waiting {
            if count > 0, words + entry.facts.count > maxWords { break }
            words += entry.facts.count
            count += 1
        }
        let batch = Array(waiting.prefix(count))
        waiting.removeFirst(count)
        return batch
    }

    /// Settles `entries`: one call of `record` a tenant, with every entry's facts of that
    /// tenant, each entry answered with its own plans out of the outcome; when a tenant's call
    /// fails with more than one entry, each entry is tried alone.
    ///
    /// Entries with ``Entry/erasures`` are first looked up together (one query a tenant, in the
    /// first such entry's directory: a process has one): one whose subscriber was erased is
    /// answered with ``DeviceWordAnswer/erasedSubscriber`` and records nothing. A lookup that
    /// fails refuses nothing, as the API's own check does: what is recorded checks its plan.
    public static func settle(_ entries: [Entry], record: (String, [DeviceAcknowledgment]) throws -> AcknowledgmentOutcome) {
        let byTenant = Dictionary(grouping: entries, by: \.tenantId)
        for tenantId in byTenant.keys.sorted() {
            var group = byTenant[tenantId]!
            let checked = group.filter { $0.erasures != nil }
            if let erasures = checked.first?.erasures,
               let erased = try? erasures.erasedSubscribers(tenantId: tenantId, ids: Array(Set(checked.flatMap { $0.facts.map(\.subscriberId) }))),
               !erased.isEmpty {
                for entry in checked {
                    guard let subscriberId = entry.facts.map(\.subscriberId).sorted().first(where: erased.contains) else { continue }
                    entry.result = .success(DeviceWordAnswer(erasedSubscriber: subscriberId))
                }
                group.removeAll { $0.result != nil }
                if group.isEmpty { continue }
            }
            do {
                let outcome = try record(tenantId, group.flatMap(\.facts))
                for entry in group { entry.result = .success(DeviceWordAnswer(outcome, of: entry.facts)) }
            } catch {
                guard group.count > 1 else { group[0].result = .failure(error); continue }
                for entry in group {
                    entry.result = Result { DeviceWordAnswer(try record(tenantId, entry.facts), of: entry.facts) }
                }
            }
        }
    }
}
