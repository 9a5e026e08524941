/// A push body that serializes itself deterministically (``JSONWritable/write(to:)``, in the
/// contract's key order), so its exact byte size is known before it is sent (APNs refuses
/// bodies over 4096 bytes).
public protocol APNsPayload: Sendable, Codable, JSONWritable {}

extension APNsPayload {
    /// The JSON body as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.bytes
    }

    /// The JSON body as text.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }
}
