/// Parses PostgreSQL's text form of a one-dimensional array.
enum PostgresArrayLiteral {
    /// `{a,"b,c",NULL}` → `["a", "b,c", nil]`; nil when the text is not such an array.
    static func parse(_ text: String) -> [String?]? {
        var scalars = Array(text.unicodeScalars)[...]
        guard scalars.first == "{", scalars.last == "}" else { return nil }
        scalars = scalars.dropFirst().dropLast()
        if scalars.isEmpty { return [] }
        var items: [String?] = []
        while true {
            var item = ""
            var quoted = false
            if scalars.first == "\"" {
                quoted = true
                scalars.removeFirst()
                var closed = false
                while let c = scalars.popFirst() {
                    if c == "\\" {
                        guard let next = scalars.popFirst() else { return nil }
                        item.unicodeScalars.append(next)
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        item.unicodeScalars.append(c)
                    }
                }
                guard closed else { return nil }
            } else {
                while let c = scalars.first, c != "," {
                    if c == "{" { return nil } // multi-dimensional arrays are not supported
                    item.unicodeScalars.append(c)
                    scalars.removeFirst()
                }
            }
            items.append(!quoted && item == "NULL" ? nil : item)
            guard let separator = scalars.popFirst() else { break }
            guard separator == "," else { return nil }
        }
        return items
    }
}
