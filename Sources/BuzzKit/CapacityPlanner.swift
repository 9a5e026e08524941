import Foundation

/// Decides whether a new plan fits under the notification center's pending limit (64 on
/// iOS), keeping the soonest ones.
///
/// The app's own pending requests are never displaced: BuzzKit's budget is the limit minus
/// their number. Within the budget the soonest plans win; on a tie the plan already
/// scheduled stays. A pinned plan is never displaced (the new plan is refused instead when
/// only pinned ones are later).
struct CapacityPlanner {
    /// A pending request as the planner sees it.
    struct Entry {
        var id: String
        var instant: Date
        var ownedByBuzzKit: Bool
        /// A BuzzKit plan that may not be displaced now: the server may count on it, and a
        /// release (`$local.released`) could not reach it in time (the wake is ending).
        var pinned = false
    }

    /// The verdict for the new plan.
    enum Decision: Equatable {
        /// Schedule it, after removing these BuzzKit requests (latest first).
        case accept(evicting: [String])
        /// Do not schedule it: it is later than every plan that fits.
        case reject
    }

    /// The pending limit.
    var limit: Int

    /// The verdict for a plan firing at `instant`, given the other pending requests.
    func decide(instant: Date, pending: [Entry]) -> Decision {
        let appOwned = pending.filter { !$0.ownedByBuzzKit }.count
        let budget = limit - appOwned
        guard budget > 0 else { return .reject }
        let ours = pending.filter(\.ownedByBuzzKit)
        guard ours.count + 1 > budget else { return .accept(evicting: []) }
        // Pinned plans keep their slots; the soonest of the others and the new plan share the rest.
        let movable = ours.filter { !$0.pinned }
        let slots = budget - (ours.count - movable.count)
        guard slots > 0 else { return .reject }
        let newId = "\u{0}new"
        let combined = (movable.map { ($0.id, $0.instant, 0) } + [(newId, instant, 1)])
            .sorted { ($0.1, $0.2, $0.0) < ($1.1, $1.2, $1.0) }
        let dropped = combined.dropFirst(slots).map(\.0)
        if dropped.contains(newId) { return .reject }
        return .accept(evicting: dropped.reversed())
    }
}
