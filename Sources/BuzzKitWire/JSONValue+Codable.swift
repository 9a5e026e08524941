extension JSONValue: Codable {
    /// Decodes any JSON value. Integral numbers that fit in `Int64` become `.int`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Most frequent kinds first: every failed attempt costs a thrown error.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(.int(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(.double(value))
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a JSON value")
        }
    }

    /// Encodes the value; integers are written without a fraction.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(.int(let value)): try container.encode(value)
        case .number(.double(let value)): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
