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
        for entry in activity.deliveries {
            var delivery = entry.delivery
            if delivery.kind == "push" { delivery.kind = "alert" }
            var stepNames: [String] = []
            switch entry.delivery.kind {
            case "plan":
                stepNames = summary.steps.filter { $0.local?.localId == entry.idempotencyKey }.map(\.name)
            case "fallback":
                stepNames = summary.steps.filter { step in
                    step.local.map { entry.idempotencyKey == PayloadBuilder.fallbackIdempotencyKey(localId: $0.localId) } ?? false
                }.map(\.name)
            case "push":
                stepNames = summary.steps.filter { entry.idempotencyKey == PayloadBuilder.pushIdempotencyKey(runId: id, stepName: $0.name) }.map(\.name)
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
