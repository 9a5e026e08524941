import Foundation

/// One member of an object, `"name": value`, in one call: a key the contract spells (so it
/// needs no escaping) and its value.
extension JSONWriter {
    public mutating func member(_ name: StaticString, _ value: String) {
        key(literal: name)
        string(value)
    }

    /// The value, or `null`.
    public mutating func member(_ name: StaticString, _ value: String?) {
        key(literal: name)
        optionalString(value)
    }

    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(literal: name)
        bool(value)
    }

    public mutating func member(_ name: StaticString, _ value: Int) {
        key(literal: name)
        int(Int64(value))
    }

    public mutating func member(_ name: StaticString, _ value: Int64) {
        key(literal: name)
        int(value)
    }

    public mutating func member(_ name: StaticString, _ value: Double) {
        key(literal: name)
        double(value)
    }

    public mutating func member(_ name: StaticString, _ value: JSONValue) {
        key(literal: name)
        write(value)
    }

    /// A free-form object, keys sorted.
    public mutating func member(_ name: StaticString, _ value: [String: JSONValue]) {
        key(literal: name)
        write(value)
    }

    public mutating func member(_ name: StaticString, _ value: some JSONWritable) {
        key(literal: name)
        value.write(to: &self)
    }

    /// An instant as RFC 3339 (see ``RFC3339``).
    public mutating func member(_ name: StaticString, instant: Date) {
        key(literal: name)
        string(RFC3339.format(instant))
    }
}
