import Foundation

extension KeyedDecodingContainer {
    /// Decodes an RFC 3339 string as an instant.
    public func decodeInstant(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "expected an RFC 3339 timestamp such as 2026-11-30T09:00:00Z, got \"\(text)\"")
        }
        return date
    }

    /// Decodes an optional RFC 3339 string; a missing key or `null` gives `nil`.
    public func decodeInstantIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeInstant(forKey: key)
    }
}
