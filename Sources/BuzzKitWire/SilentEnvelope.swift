/// The `aps` member every silent push carries: `{"content-available": 1}`.
enum SilentEnvelope {
    private enum Keys: String, CodingKey {
        case contentAvailable = "content-available"
    }

    /// Encodes `"aps": {"content-available": 1}` under `key`.
    static func encode<K: CodingKey>(into container: inout KeyedEncodingContainer<K>, forKey key: K) throws {
        var aps = container.nestedContainer(keyedBy: Keys.self, forKey: key)
        try aps.encode(1, forKey: .contentAvailable)
    }

    /// Opens the payload object and writes `"aps": {"content-available": 1}` into it.
    static func begin(_ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key(literal: "aps")
        writer.beginObject()
        writer.member("content-available", 1)
        writer.endObject()
    }
}
