/// Where a step sits in a definition, written like its JSON path:
/// `steps[1]`, `steps[2].branch.then[0]`, `steps[2].branch.else[1].branch.then[0]`.
///
/// Timers carry a step path so a timer that no longer matches the run's position is
/// recognised as stale. Codable as its text.
public struct StepPath: Sendable, Hashable, TextCoded {
    /// Which list of a branch a nested step is in.
    public enum Arm: Int, Sendable, Hashable {
        /// The `then` list.
        case then = 0
        /// The `else` list.
        case `else` = 1
    }

    /// The top-level index.
    public let root: Int
    /// The nested positions, outermost first: the arm of the branch at the previous
    /// position and the index within that arm.
    public let nested: [(arm: Arm, index: Int)]

    /// A path from its parts.
    public init(root: Int, nested: [(arm: Arm, index: Int)] = []) {
        self.root = root
        self.nested = nested
    }

    /// The path of the step `index` of this branch step's `arm`.
    public func child(_ arm: Arm, _ index: Int) -> StepPath {
        StepPath(root: root, nested: nested + [(arm, index)])
    }

    /// The path of the step `offset` positions later in the same list.
    public func sibling(_ offset: Int = 1) -> StepPath {
        guard let last = nested.last else { return StepPath(root: root + offset) }
        return StepPath(root: root, nested: nested.dropLast() + [(last.arm, last.index + offset)])
    }

    /// The path of the branch step that contains this one, or `nil` at the top level.
    public var parent: StepPath? {
        guard !nested.isEmpty else { return nil }
        return StepPath(root: root, nested: Array(nested.dropLast()))
    }

    /// The step's index in its own list.
    public var index: Int { nested.last?.index ?? root }

    /// `steps[1].branch.then[0]`.
    public var description: String {
        var text = "steps[\(root)]"
        for (arm, index) in nested { text += ".branch.\(arm == .then ? "then" : "else")[\(index)]" }
        return text
    }

    public static let textForm = "a step path"

    /// Parses the text form, or returns `nil`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = parts.first, let root = StepPath.index(in: first, name: "steps"), parts.count % 2 == 1 else { return nil }
        var nested: [(arm: Arm, index: Int)] = []
        var position = 1
        while position < parts.count {
            guard parts[position] == "branch" else { return nil }
            if let index = StepPath.index(in: parts[position + 1], name: "then") {
                nested.append((.then, index))
            } else if let index = StepPath.index(in: parts[position + 1], name: "else") {
                nested.append((.else, index))
            } else {
                return nil
            }
            position += 2
        }
        self.init(root: root, nested: nested)
    }

    public static func == (lhs: StepPath, rhs: StepPath) -> Bool {
        lhs.root == rhs.root && lhs.nested.count == rhs.nested.count
            && zip(lhs.nested, rhs.nested).allSatisfy { $0.arm == $1.arm && $0.index == $1.index }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
        for (arm, index) in nested {
            hasher.combine(arm)
            hasher.combine(index)
        }
    }

    private static func index(in part: Substring, name: String) -> Int? {
        guard part.hasPrefix(name + "["), part.hasSuffix("]") else { return nil }
        let digits = part.dropFirst(name.count + 1).dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value >= 0 else { return nil }
        return value
    }
}
