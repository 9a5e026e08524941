extension Configuration {
    /// Sets `value` from `environment[key]` when that is set and not empty; a value that does
    /// not parse is a configuration error naming `key`.
    static func read<T: LosslessStringConvertible>(_ key: String, from environment: [String: String], into value: inout T) throws {
        guard let text = environment[key], !text.isEmpty else { return }
        guard let parsed = T(text) else {
            let kind = T.self == Int.self ? "a whole number" : "a number"
            throw ServerError(.configuration, "\(key) must be \(kind), got \"\(text)\"", field: key)
        }
        value = parsed
    }

    /// Throws a configuration error naming `field` unless `value` lies in `range`.
    static func require(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "", note: String = "") throws {
        guard range.contains(value) else {
            let bounds = "\(range.lowerBound)\(note) and \(range.upperBound)\(unit.isEmpty ? "" : " " + unit)"
            throw ServerError(.configuration, "must be between \(bounds), got \(value)", field: field)
        }
    }
}
