import Foundation

/// One environment variable of a settings struct, named once: the field it sets, how its text
/// is read, and the values it may take. A settings struct lists its variables in
/// ``EnvironmentSettings/settings``; reading (``EnvironmentSettings/read(_:)``) and checking
/// (``EnvironmentSettings/checkSettings()``) both walk that list, so a variable cannot be read
/// without its bounds or checked under another name. Every failure is a configuration error
/// naming the variable.
public struct Setting<Owner> {
    /// The environment variable, for example `BUZZKIT_BATCH_SIZE`.
    public let name: String
    /// Sets the field from the variable's text (never empty).
    let read: (inout Owner, String) throws -> Void
    /// Throws unless the field's value is allowed.
    let check: (Owner) throws -> Void

    /// A whole number within `range`, which may depend on other fields (a burst at least its
    /// rate); `note` follows the lower bound in the message, for example " (no limit)".
    public static func number(_ name: String, _ field: WritableKeyPath<Owner, Int>, in range: @escaping (Owner) -> ClosedRange<Int>,
                              unit: String = "", note: String = "") -> Setting {
        Setting(name: name, read: { $0[keyPath: field] = try parse($1, name) }) { owner in
            let value = owner[keyPath: field], bounds = range(owner)
            guard bounds.contains(value) else {
                let upper = "\(bounds.upperBound)" + (unit.isEmpty ? "" : " " + unit)
                throw ServerError(.configuration, "must be between \(bounds.lowerBound)\(note) and \(upper), got \(value)", field: name)
            }
        }
    }

    /// A whole number within a fixed `range`.
    public static func number(_ name: String, _ field: WritableKeyPath<Owner, Int>, in range: ClosedRange<Int>,
                              unit: String = "", note: String = "") -> Setting {
        number(name, field, in: { _ in range }, unit: unit, note: note)
    }

    /// A number within `range` (in `unit`, such as "seconds").
    public static func number(_ name: String, _ field: WritableKeyPath<Owner, Double>, in range: ClosedRange<Double>, unit: String = "") -> Setting {
        decimal(name, field, unit: unit, bounds: "between \(plain(range.lowerBound)) and \(plain(range.upperBound))", allows: range.contains)
    }

    /// A number above `lower` and at most `upper`.
    public static func number(_ name: String, _ field: WritableKeyPath<Owner, Double>, above lower: Double, atMost upper: Double,
                              unit: String = "") -> Setting {
        decimal(name, field, unit: unit, bounds: "above \(plain(lower)) and at most \(plain(upper))", allows: { $0 > lower && $0 <= upper })
    }

    /// `true` or `false`.
    public static func flag(_ name: String, _ field: WritableKeyPath<Owner, Bool>) -> Setting {
        Setting(name: name, read: { $0[keyPath: field] = try parse($1, name) }, check: { _ in })
    }

    /// Text; with a `rule`, only text `allows` accepts (the message says the rule and echoes
    /// the value).
    public static func text(_ name: String, _ field: WritableKeyPath<Owner, String>, rule: String = "",
                            allows: @escaping (String) -> Bool = { _ in true }) -> Setting {
        Setting(name: name, read: { $0[keyPath: field] = $1 }) { owner in
            let value = owner[keyPath: field]
            guard allows(value) else { throw ServerError(.configuration, "\(rule), got \"\(value)\"", field: name) }
        }
    }

    /// One of `T`'s cases, named by its raw value.
    public static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ field: WritableKeyPath<Owner, T>) -> Setting
    where T.RawValue == String {
        Setting(name: name, read: { owner, text in
            guard let value = T(rawValue: text) else {
                throw ServerError(.configuration, "must be \(T.allCases.map(\.rawValue).joined(separator: " or ")), got \"\(text)\"", field: name)
            }
            owner[keyPath: field] = value
        }, check: { _ in })
    }

    /// Text that may be absent.
    public static func optionalText(_ name: String, _ field: WritableKeyPath<Owner, String?>) -> Setting {
        Setting(name: name, read: { $0[keyPath: field] = $1 }, check: { _ in })
    }

    private static func decimal(_ name: String, _ field: WritableKeyPath<Owner, Double>, unit: String, bounds: String,
                                allows: @escaping (Double) -> Bool) -> Setting {
        Setting(name: name, read: { $0[keyPath: field] = try parse($1, name) }) { owner in
            let value = owner[keyPath: field]
            guard allows(value) else {
                throw ServerError(.configuration, "must be \(bounds)" + (unit.isEmpty ? "" : " " + unit) + ", got \(plain(value))", field: name)
            }
        }
    }

    private static func parse<T: LosslessStringConvertible>(_ text: String, _ name: String) throws -> T {
        guard let parsed = T(text) else {
            let kind = T.self == Int.self ? "a whole number" : T.self == Bool.self ? "true or false" : "a number"
            throw ServerError(.configuration, "\(name) must be \(kind), got \"\(text)\"", field: name)
        }
        return parsed
    }

    /// `60` rather than `60.0`; fractions as they are.
    private static func plain(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
