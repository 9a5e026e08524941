import Foundation

/// Moves a `Codable` value into and out of a ``JSONValue`` through Foundation's coders, for
/// the rare members of the hand-written forms (a workflow snapshot, a failure) that are not
/// worth a reader of their own.
public enum CodableBridge {
    /// The value as JSON (`null` if it does not encode, which a `Codable` model never does).
    public static func value<T: Encodable>(of value: T) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONParser.parse(data) else { return .null }
        return json
    }

    /// Decodes `T` from a JSON value; a failure names `path`.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, path: String) throws -> T {
        var writer = JSONWriter()
        writer.write(value)
        do {
            return try JSONDecoder().decode(T.self, from: Data(writer.bytes))
        } catch {
            throw JSONFields.Failure(path: path, reason: "\(error)")
        }
    }
}
