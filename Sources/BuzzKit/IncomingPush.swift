import BuzzKitWire
import Foundation

/// A remote notification payload, classified.
enum IncomingPush {
    /// `bk.local`: a plan to schedule.
    case plan(LocalPlan)
    /// `bk.cancel`: an id (or prefix) to remove.
    case cancel(String)
    /// An alert carrying a `bk` message (a fallback or an ordinary push).
    case alert(NotificationMessage)
    /// Not a BuzzKit payload.
    case unrelated
    /// A BuzzKit payload that cannot be read.
    case malformed(BuzzKitError)

    /// Classifies a payload.
    init(payload: [String: JSONValue]) {
        if payload["bk.local"] != nil {
            do {
                let plan = try SilentPlanPayload(json: .object(payload), path: "").local
                guard !plan.id.isEmpty, !plan.messageId.isEmpty, plan.fireAt.isValid else {
                    self = .malformed(BuzzKitError(.invalidPayload, context: "bk.local",
                                                   message: "the plan needs an id, a messageId and a real fireAt, got id \"\(plan.id)\", fireAt \(plan.fireAt)"))
                    return
                }
                self = .plan(plan)
            } catch {
                self = .malformed(BuzzKitError(.invalidPayload, context: "bk.local", message: "the plan could not be read: \(error)"))
            }
        } else if payload["bk.cancel"] != nil {
            do {
                let cancel = try CancelPayload(json: .object(payload), path: "")
                // An empty id would be a prefix of every local id and wipe everything.
                guard !cancel.id.isEmpty else {
                    self = .malformed(BuzzKitError(.invalidPayload, context: "bk.cancel", message: "the cancel id is empty"))
                    return
                }
                self = .cancel(cancel.id)
            } catch {
                self = .malformed(BuzzKitError(.invalidPayload, context: "bk.cancel", message: "the cancel could not be read: \(error)"))
            }
        } else if case .object(let aps)? = payload["aps"], aps["alert"] != nil,
                  let message = NotificationMessage(userInfo: payload) {
            self = .alert(message)
        } else {
            self = .unrelated
        }
    }
}
