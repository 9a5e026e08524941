import BuzzKitWire

/// Text with `{{trigger.<property>}}` placeholders, as `title`, `body` and `at` take it.
///
/// A placeholder is replaced by the triggering event's property at that dotted path:
/// strings as they are, numbers and booleans in their JSON form, arrays and objects as JSON
/// text, and a missing property or `null` as the empty string. Whitespace inside the braces
/// is allowed (`{{ trigger.name }}`). Text without `{{` is used as it is; a lone `}}` is
/// plain text.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// The text as written in the definition.
    public let source: String
    let segments: [Segment]

    enum Segment: Sendable, Hashable {
        case literal(String)
        case trigger([String])
    }

    /// Parses a template, or throws ``EngineError/Code/invalidTemplate`` (with an empty path
    /// for the caller to fill in).
    public init(parsing source: String) throws(EngineError) {
        var segments: [Segment] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { segments.append(.literal(String(rest[..<open.lowerBound]))) }
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else {
                throw EngineError(code: .invalidTemplate, path: "",
                                  message: "\"{{\" is never closed in \"\(source)\"; write placeholders as {{trigger.<property>}}")
            }
            let inner = afterOpen[..<close.lowerBound].trimmingWhitespace()
            guard inner.hasPrefix("trigger."), !inner.contains("{") else {
                throw EngineError(code: .invalidTemplate, path: "",
                                  message: "unknown placeholder \"{{\(inner)}}\"; only {{trigger.<property>}} is available")
            }
            let path = inner.dropFirst("trigger.".count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.contains(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) else {
                throw EngineError(code: .invalidTemplate, path: "",
                                  message: "\"{{\(inner)}}\" is not a property path; use dotted names such as {{trigger.workout.id}}")
            }
            segments.append(.trigger(path))
            rest = afterOpen[close.upperBound...]
        }
        if !rest.isEmpty { segments.append(.literal(String(rest))) }
        self.source = source
        self.segments = segments
    }

    /// Whether the text has no placeholders.
    public var isConstant: Bool {
        !segments.contains { if case .trigger = $0 { return true } else { return false } }
    }

    /// The text with every placeholder filled from the trigger's properties.
    public func render(trigger: [String: JSONValue]) -> String {
        switch segments.count {
        case 0: return ""
        case 1: if case .literal(let text) = segments[0] { return text }
        default: break
        }
        var output = ""
        for segment in segments {
            switch segment {
            case .literal(let text): output += text
            case .trigger(let path): output += Template.text(of: trigger.value(at: path))
            }
        }
        return output
    }

    /// The source text.
    public var description: String { source }

    static func text(of value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        case .number(let number)?: return number.description
        case let other?: return other.jsonText
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        var text = self
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
