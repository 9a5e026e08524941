/// A JSON number that remembers whether it was written as an integer.
///
/// Integers that fit in `Int64` stay `.int` and are written back without a fraction, so
/// `{"count": 3}` round-trips as `3`, never `3.0`. Everything else is `.double`.
///
/// Equality is numeric and exact: `.int(1) == .double(1.0)`, but an integer only equals a
/// double that represents exactly the same value, which keeps `Hashable` consistent.
public enum JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// An integer value (written without a decimal point or exponent).
    case int(Int64)
    /// Any other finite number.
    case double(Double)

    /// The value as a `Double` (large integers may lose precision).
    public var doubleValue: Double {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        }
    }

    /// The value as an `Int64` when it is integral and in range, else `nil`.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value): return JSONNumber.exactInt64(value)
        }
    }

    /// The JSON text of the number (`3`, `-0.5`, `1e+20`). Non-finite doubles, which JSON
    /// cannot express, are written as `null`.
    public var description: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value):
            guard value.isFinite else { return "null" }
            if let exact = JSONNumber.exactInt64(value), abs(value) < 1e15 { return String(exact) }
            return "\(value)"
        }
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)):
            return exactInt64(b) == a
        }
    }

    public func hash(into hasher: inout Hasher) {
        if let exact = int64Value {
            hasher.combine(0 as UInt8)
            hasher.combine(exact)
        } else {
            hasher.combine(1 as UInt8)
            hasher.combine(doubleValue)
        }
    }

    /// Orders two numbers numerically (integers exactly, mixed pairs as doubles).
    public static func compare(_ lhs: JSONNumber, _ rhs: JSONNumber) -> ComparisonOrder {
        if case .int(let a) = lhs, case .int(let b) = rhs {
            return a < b ? .ascending : (a == b ? .same : .descending)
        }
        let a = lhs.doubleValue, b = rhs.doubleValue
        if a < b { return .ascending }
        if a > b { return .descending }
        return a == b ? .same : .unordered
    }

    /// The result of ``compare(_:_:)``.
    public enum ComparisonOrder: Sendable {
        case ascending, same, descending, unordered
    }

    /// `value` as an `Int64` when it is integral and in range.
    public static func exactInt64(_ value: Double) -> Int64? {
        guard value.isFinite, value.rounded(.towardZero) == value,
              value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }
}
