import Foundation

/// Reads and checks one setting: `Configuration`'s and every settings struct's, from the
/// environment `main` passes in, each failure a configuration error naming the variable.
public enum SettingReader {
    /// Sets `value` from `environment[key]` when that is set and not empty; a value that does
    /// not parse is a configuration error naming `key`.
    public static func read<T: LosslessStringConvertible>(_ key: String, from environment: [String: String], into value: inout T) throws {
        guard let text = environment[key], !text.isEmpty else { return }
        guard let parsed = T(text) else {
            let kind = T.self == Int.self ? "a whole number" : T.self == Bool.self ? "true or false" : "a number"
            throw ServerError(.configuration, "\(key) must be \(kind), got \"\(text)\"", field: key)
        }
        value = parsed
    }

    /// Throws a configuration error naming `field` unless `value` lies in `range`.
    public static func require(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "", note: String = "") throws {
        guard range.contains(value) else {
            let bounds = "\(range.lowerBound)\(note) and \(range.upperBound)\(unit.isEmpty ? "" : " " + unit)"
            throw ServerError(.configuration, "must be between \(bounds), got \(value)", field: field)
        }
    }

    /// Throws a configuration error naming `field` unless `value` lies in `range` (in `unit`,
    /// such as "seconds"): one check, one message, for every bounded setting that is a number.
    public static func require(_ value: Double, in range: ClosedRange<Double>, _ field: String, unit: String = "") throws {
        guard range.contains(value) else {
            throw ServerError(.configuration, "must be between \(plain(range.lowerBound)) and \(plain(range.upperBound))"
                              + (unit.isEmpty ? "" : " " + unit) + ", got \(plain(value))", field: field)
        }
    }

    /// Throws a configuration error naming `field` unless `lower < value <= upper`.
    public static func require(_ value: Double, above lower: Double, atMost upper: Double, _ field: String, unit: String = "") throws {
        guard value > lower, value <= upper else {
            throw ServerError(.configuration, "must be above \(plain(lower)) and at most \(plain(upper))"
                              + (unit.isEmpty ? "" : " " + unit) + ", got \(plain(value))", field: field)
        }
    }

    /// `60` rather than `60.0`; fractions as they are.
    private static func plain(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
