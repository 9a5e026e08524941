/// The silent plan push body:
/// `{"aps": {"content-available": 1}, "bk.local": {…}}`.
///
/// Send it with the headers of ``APNsHeaders/plan(expiresAt:)``.
public struct SilentPlanPayload: APNsPayload, Hashable {
    /// The plan (`bk.local`).
    public var local: LocalPlan

    /// A payload carrying `local`.
    public init(local: LocalPlan) {
        self.local = local
    }

    private enum CodingKeys: String, CodingKey {
        case aps
        case local = "bk.local"
    }

    /// Decodes the body; `aps` is not required on decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        local = try container.decode(LocalPlan.self, forKey: .local)
    }

    /// Encodes the body with `aps.content-available = 1`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try SilentEnvelope.encode(into: &container, forKey: .aps)
        try container.encode(local, forKey: .local)
    }

    /// Writes `{"aps":{"content-available":1},"bk.local":{…}}`.
    public func write(to writer: inout JSONWriter) {
        SilentEnvelope.begin(&writer)
        writer.member("bk.local", local)
        writer.endObject()
    }
}
