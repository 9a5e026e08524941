extension Configuration {
    /// Throws a configuration error naming `field` unless `value` lies in `range`.
    static func require(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "", note: String = "") throws {
        guard range.contains(value) else {
            let bounds = "\(range.lowerBound)\(note) and \(range.upperBound)\(unit.isEmpty ? "" : " " + unit)"
            throw ServerError(.configuration, "must be between \(bounds), got \(value)", field: field)
        }
    }
}
