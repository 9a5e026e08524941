/// How a plan's fallback is named: the server's idempotency key for it, and the identifier a
/// notification center gives its alert, are both `<localId>/fallback` (the key shortened to
/// its SHA-256 when it would not fit APNs' 64-byte collapse id, see the engine's
/// `PayloadBuilder`). One spelling for the server, the SDK's model of iOS and the simulator's
/// judge.
extension LocalPlan {
    private static let fallbackSuffix = "/fallback"

    /// `<localId>/fallback`.
    public static func fallbackName(localId: String) -> String {
        localId + fallbackSuffix
    }

    /// The local id a fallback's name is made of, or nil when `name` names no fallback.
    public static func localId(ofFallback name: String) -> String? {
        name.hasSuffix(fallbackSuffix) ? String(name.dropLast(fallbackSuffix.count)) : nil
    }
}
