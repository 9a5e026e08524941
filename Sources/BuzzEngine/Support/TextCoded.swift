/// A value whose JSON form is one string: its ``description``, read back with
/// ``init(parsing:)`` (a wall-clock time, a step path). Codable comes with it: a string that does
/// not parse is a `DecodingError` that quotes it and says what was expected.
public protocol TextCoded: Codable, CustomStringConvertible {
    /// The value the text names, or nil when it names none.
    init?(parsing text: String)
    /// What a well-formed text looks like, for errors (`"HH:MM or HH:MM:SS"`).
    static var textForm: String { get }
}

extension TextCoded {
    /// Decodes the text form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected \(Self.textForm), got \"\(text)\"")
        }
        self = value
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
