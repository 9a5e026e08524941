/// The cancel push body: `{"aps": {"content-available": 1}, "bk.cancel": {"id": "<runId>"}}`.
///
/// A device removes every pending notification whose id equals `id` or starts with it;
/// local ids are `<runId>/<stepName>`, so a run id removes everything that run scheduled.
public struct CancelPayload: APNsPayload, Hashable {
    /// The id or id prefix to remove (a run id).
    public var id: String

    /// A cancel of `id`.
    public init(id: String) {
        self.id = id
    }

    private enum CodingKeys: String, CodingKey {
        case aps
        case cancel = "bk.cancel"
    }

    private enum CancelKeys: String, CodingKey {
        case id
    }

    /// Decodes the body; `aps` is not required on decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let cancel = try container.nestedContainer(keyedBy: CancelKeys.self, forKey: .cancel)
        id = try cancel.decode(String.self, forKey: .id)
    }

    /// Encodes the body with `aps.content-available = 1`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try SilentEnvelope.encode(into: &container, forKey: .aps)
        var cancel = container.nestedContainer(keyedBy: CancelKeys.self, forKey: .cancel)
        try cancel.encode(id, forKey: .id)
    }

    /// Writes `{"aps":{"content-available":1},"bk.cancel":{"id":…}}`.
    public func write(to writer: inout JSONWriter) {
        SilentEnvelope.begin(&writer)
        writer.key(literal: "bk.cancel")
        writer.beginObject()
        writer.member("id", id)
        writer.endObject()
        writer.endObject()
    }

    /// Whether this cancel removes a notification with the given local id (equal or prefix).
    public func matches(localId: String) -> Bool {
        localId == id || localId.hasPrefix(id)
    }
}
