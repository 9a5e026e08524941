import Foundation

/// A value in an AMQP field table (message headers, queue arguments).
public enum AMQPFieldValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case double(Double)
    case bytes(Data)
    case timestamp(Date)
    case array([AMQPFieldValue])
    case table([String: AMQPFieldValue])
    case void

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        if case .bytes(let d) = self { return String(data: d, encoding: .utf8) }
        return nil
    }

    public var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .int(let i): return "\(i)"
        case .bool(let b): return "\(b)"
        case .double(let d): return "\(d)"
        case .bytes(let d): return "<\(d.count) bytes>"
        case .timestamp(let t): return "\(t)"
        case .array(let a): return "[\(a.map(\.description).joined(separator: ", "))]"
        case .table(let t): return "{\(t.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        case .void: return "void"
        }
    }
}

extension AMQPFieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
