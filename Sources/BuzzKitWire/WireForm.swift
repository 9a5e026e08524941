import Foundation

/// The wire forms' encoding rules, as property wrappers so that a wire type's `Codable` is the
/// compiler's own: instants are RFC 3339 strings whatever the encoder's date strategy
/// (``Instant``, ``InstantOrNull``); an absent member is an explicit `null`, never a missing
/// key (``OrNull``, ``InstantOrNull``); a list the server fills in later may be missing from
/// older input (``List``). Decoding takes a missing key as `nil` or `[]`.
public enum WireForm {
    /// An instant, coded as an RFC 3339 string (see ``RFC3339``).
    @propertyWrapper
    public struct Instant: Sendable, Hashable, Codable {
        public var wrappedValue: Date
        public init(wrappedValue: Date) { self.wrappedValue = wrappedValue }

        public init(from decoder: any Decoder) throws {
            wrappedValue = try WireForm.instant(in: decoder.singleValueContainer())
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(wrappedValue))
        }
    }

    /// An optional instant: an RFC 3339 string, or an explicit `null`.
    @propertyWrapper
    public struct InstantOrNull: Sendable, Hashable, Codable {
        public var wrappedValue: Date?
        public init(wrappedValue: Date?) { self.wrappedValue = wrappedValue }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            wrappedValue = container.decodeNil() ? nil : try WireForm.instant(in: container)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let wrappedValue { try container.encode(RFC3339.format(wrappedValue)) } else { try container.encodeNil() }
        }
    }

    /// An optional value: the value, or an explicit `null`.
    @propertyWrapper
    public struct OrNull<Value: Codable & Hashable & Sendable>: Sendable, Hashable, Codable {
        public var wrappedValue: Value?
        public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
        }
    }

    /// A list, always written; missing input reads as empty.
    @propertyWrapper
    public struct List<Element: Codable & Hashable & Sendable>: Sendable, Hashable, Codable {
        public var wrappedValue: [Element]
        public init(wrappedValue: [Element]) { self.wrappedValue = wrappedValue }

        public init(from decoder: any Decoder) throws {
            wrappedValue = try decoder.singleValueContainer().decode([Element].self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(wrappedValue)
        }
    }

    static func instant(in container: any SingleValueDecodingContainer) throws -> Date {
        let text = try container.decode(String.self)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an RFC 3339 timestamp such as 2026-11-30T09:00:00Z, got \"\(text)\"")
        }
        return date
    }
}

/// A missing key reads as `nil` or `[]` (the compiler's `Codable` asks for the wrapper by key).
extension KeyedDecodingContainer {
    public func decode(_ type: WireForm.InstantOrNull.Type, forKey key: Key) throws -> WireForm.InstantOrNull {
        try decodeIfPresent(type, forKey: key) ?? WireForm.InstantOrNull(wrappedValue: nil)
    }

    public func decode<Value>(_ type: WireForm.OrNull<Value>.Type, forKey key: Key) throws -> WireForm.OrNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? WireForm.OrNull(wrappedValue: nil)
    }

    public func decode<Element>(_ type: WireForm.List<Element>.Type, forKey key: Key) throws -> WireForm.List<Element> {
        try decodeIfPresent(type, forKey: key) ?? WireForm.List(wrappedValue: [])
    }
}
