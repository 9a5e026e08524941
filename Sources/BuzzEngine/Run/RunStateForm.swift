/// Which stored form a store writes run states in. ``RunState/init(json:workflow:)`` reads
/// both, whichever it meets.
///
/// The verbose form (`{"version": 1, …}`) is what every release has read. The compact form
/// (`{"v": 2, …}`, ``RunState/writeCompact(to:includingWorkflow:)``) holds the same state in
/// about 60 % of the bytes (790 B against 1,326 for a waiting window of `make bench`): short
/// keys, each instant as milliseconds since 1970, and nothing written twice (the run id, a
/// timer's step, a window's moment when it is the step's due time, false flags). A run's state
/// is written when its run starts and again at each change, so its size is paid in the runs
/// table, in the WAL and by every reader.
///
/// Releases before the compact form cannot read it: a fleet upgraded process by process from
/// one of them writes `verbose` until none of the older processes is left (see
/// docs/operations.md, "Upgrading").
public enum RunStateForm: String, Sendable, CaseIterable {
    /// `{"version": 1, …}`, readable by every release.
    case verbose
    /// `{"v": 2, …}`, readable by this release and later ones.
    case compact

    /// The version number each form carries.
    public var version: Int {
        switch self {
        case .verbose: return RunState.storageVersion
        case .compact: return RunState.compactStorageVersion
        }
    }
}
