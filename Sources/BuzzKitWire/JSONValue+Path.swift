extension JSONValue {
    /// Follows a property path: each segment is an object key, or an array index written
    /// in decimal (`items.0.sku`). Returns `nil` when any segment is missing.
    public func value<Path: Collection>(at path: Path) -> JSONValue? where Path.Element == String {
        var current = self
        for segment in path {
            switch current {
            case .object(let members):
                guard let next = members[segment] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(segment), index >= 0, index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The JSON text of the value with sorted object keys (deterministic).
    public var jsonText: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.string
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Follows a property path starting at these members, see ``JSONValue/value(at:)``.
    public func value<Path: Collection>(at path: Path) -> JSONValue? where Path.Element == String {
        guard let first = path.first, let start = self[first] else { return nil }
        return start.value(at: path.dropFirst())
    }
}
