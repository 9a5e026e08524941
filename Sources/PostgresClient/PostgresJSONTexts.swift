/// Several JSON documents bound as one parameter, for the multi-row statements that carry
/// kilobytes of JSON a row (stored run states, push bodies). Split it in SQL with
/// `string_to_array($n, chr(30))`, then cast each piece (`::json`, `::jsonb`).
///
/// The documents are joined with the ASCII record separator (30), which JSON text never holds
/// raw: outside strings only spaces, tabs and line breaks may appear, and a string escapes
/// every control character. Bound as a `text[]` literal instead, every quote of every
/// document is escaped here and unescaped again by PostgreSQL's `array_in`: measurable when a
/// batch writes hundreds of 1.3 KB run states. A text that is not JSON and holds the
/// separator splits wrongly, which the cast or a column count then refuses; it cannot pass
/// as another row's value unnoticed.
public struct PostgresJSONTexts: PostgresBindable {
    /// The documents, in order.
    public var documents: [String]

    public init(_ documents: [String]) { self.documents = documents }

    /// `chr(30)`, the separator's code, for the SQL that splits the parameter.
    public static let separatorCode = 30

    public var postgresText: String {
        var joined: [UInt8] = []
        joined.reserveCapacity(documents.reduce(documents.count) { $0 + $1.utf8.count })
        for (index, document) in documents.enumerated() {
            if index > 0 { joined.append(UInt8(Self.separatorCode)) }
            joined.append(contentsOf: document.utf8)
        }
        return String(decoding: joined, as: UTF8.self)
    }
}
