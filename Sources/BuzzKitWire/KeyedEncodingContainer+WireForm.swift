import Foundation

/// The wire forms' encoding rules: instants as RFC 3339 strings, absent values as explicit
/// `null`s (the contract's members are always present).
extension KeyedEncodingContainer {
    /// Encodes an instant as an RFC 3339 string (see ``RFC3339``), whatever the encoder's
    /// date strategy.
    public mutating func encodeInstant(_ date: Date, forKey key: Key) throws {
        try encode(RFC3339.format(date), forKey: key)
    }

    /// Encodes an instant as an RFC 3339 string, or an explicit `null`.
    public mutating func encodeInstantOrNull(_ date: Date?, forKey key: Key) throws {
        if let date { try encodeInstant(date, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// Encodes a value, or an explicit `null`.
    public mutating func encodeOrNull<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
