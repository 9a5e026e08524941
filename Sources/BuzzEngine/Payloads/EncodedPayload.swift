import BuzzKitWire

/// A push body together with its exact JSON text, checked against APNs' size limit.
public struct EncodedPayload<Payload: APNsPayload & Hashable>: Sendable, Hashable {
    /// The typed body.
    public let payload: Payload
    /// The JSON text to send (UTF-8), in the contract's key order.
    public let body: String
    /// The body's size in bytes.
    public var byteCount: Int { body.utf8.count }

    /// Serializes a payload, or throws ``EngineError/Code/payloadTooLarge`` when the body is
    /// over ``PayloadBuilder/apnsPayloadLimit`` bytes.
    public init(_ payload: Payload, path: String) throws(EngineError) {
        let bytes = payload.jsonBytes
        guard bytes.count <= PayloadBuilder.apnsPayloadLimit else {
            throw EngineError(code: .payloadTooLarge, path: path,
                              message: "the push body is \(bytes.count) bytes, over APNs' \(PayloadBuilder.apnsPayloadLimit)-byte limit; shorten the title, body or data")
        }
        self.payload = payload
        self.body = String(decoding: bytes, as: UTF8.self)
    }

    init(unchecked payload: Payload) {
        self.payload = payload
        self.body = payload.jsonString
    }
}
