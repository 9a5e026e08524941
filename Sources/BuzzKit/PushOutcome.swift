/// What handling a remote notification changed, mirroring `UIBackgroundFetchResult`.
///
/// Apps that forward pushes themselves pass it to the fetch completion handler.
public enum PushOutcome: String, Sendable, Hashable, Codable {
    /// Something changed: a plan was scheduled, or notifications were removed.
    case newData
    /// Nothing changed: not a BuzzKit payload, a duplicate, a past plan, a plan that did not
    /// fit, or a cancel that matched nothing.
    case noData
    /// The payload was a BuzzKit payload but could not be handled (malformed, or the
    /// notification center refused it).
    case failed
}
