import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

extension RunSummary {
    /// The summary with its run's deliveries on the steps they were sent for, and `opened`.
    ///
    /// A plan (key `<localId>`) and its fallback (`<localId>/fallback`) belong to the step of
    /// that local window; an ordinary push (`<runId>/<step>/push`) to its step. Those two keys
    /// are the engine's own (``PayloadBuilder``): over 64 bytes, a step name of 19 characters or
    /// more, they are the SHA-256 of the text. A cancel (`<runId>/cancel`) is listed on every
    /// local step whose plan went to that device.
    public func attaching(_ activity: RunActivity) -> RunSummary {
        var summary = self
        summary.opened = activity.opened
        // Each step's own keys, made once: a plan's and a fallback's for a local window, a
        // push's for any step (the long ones are hashes).
        var stepsByKey: [String: [String]] = [:]
        for step in steps {
            if let local = step.local {
                stepsByKey["plan " + local.localId, default: []].append(step.name)
                stepsByKey["fallback " + PayloadBuilder.fallbackIdempotencyKey(localId: local.localId), default: []].append(step.name)
            }
            stepsByKey["push " + PayloadBuilder.pushIdempotencyKey(runId: id, stepName: step.name), default: []].append(step.name)
        }
        for entry in activity.deliveries {
            var delivery = entry.delivery
            if delivery.kind == "push" { delivery.kind = "alert" }
            let stepNames: [String]
            switch entry.delivery.kind {
            case "plan", "fallback", "push":
                stepNames = stepsByKey[entry.delivery.kind + " " + entry.idempotencyKey] ?? []
            default:
                let planned = summary.steps.filter { step in step.deliveries.contains { $0.kind == "plan" && $0.tokenSuffix == delivery.tokenSuffix } }
                stepNames = (planned.isEmpty ? summary.steps.filter { $0.local != nil }.suffix(1) : planned[...]).map(\.name)
            }
            for index in summary.steps.indices where stepNames.contains(summary.steps[index].name) {
                summary.steps[index].deliveries.append(delivery)
            }
        }
        // Opens and buttons by the step's message id (the plan's and the fallback's alike).
        for index in summary.steps.indices {
            let messageId = PayloadBuilder.messageId(localId: PayloadBuilder.localId(runId: id, stepName: summary.steps[index].name))
            summary.steps[index].opened = activity.opens.first { $0.messageId == messageId }
            summary.steps[index].actions = activity.actions.filter { $0.messageId == messageId }.map(\.taken)
        }
        return summary
    }
}
