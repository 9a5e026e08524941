/// A step's status in the run summary. The raw values are the summary's strings.
public enum StepStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// A wait, delay or deferred push is waiting for its moment.
    case waiting
    /// A local send whose plan went to the devices; the fallback check runs at the moment.
    case planned
    /// A wait, delay or branch finished.
    case completed
    /// A `deliver: "push"` send was sent.
    case sent
    /// A local window reached its moment with a device's acknowledgment: no push was needed.
    case scheduledOnDevice = "scheduled on device"
    /// A local window reached its moment without an acknowledgment (or too late for a
    /// plan): the fallback push was sent.
    case fallbackSent = "fallback sent"
    /// A send in a dry run: computed and recorded, never sent.
    case notSentDryRun = "not sent (dry run)"
    /// A send in a run without a subscriber: there is no one to send to.
    case notSentNoSubscriber = "not sent (no subscriber)"
    /// The run was cancelled while this step was in progress.
    case cancelled
    /// The step failed; the run failed with it.
    case failed
}
