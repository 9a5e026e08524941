import BuzzKitWire
import Foundation

/// A validated workflow definition (docs/contract.md §2).
///
/// Create one with ``parse(_:)-(JSONValue)`` or ``parse(data:)``, which refuse invalid
/// definitions with every problem listed. It is `Codable` as the same JSON, and decoding
/// validates again.
///
/// Semantics decided beyond the contract:
/// - A `waitUntil` immediately followed (in the same step list) by `send` with
///   `deliver: "local"` is a local window: the plan goes out when the wait begins.
/// - A `deliver: "local"` send anywhere else (first step, after a `delay` or `branch`, first
///   in a branch arm) is an *immediate local plan*: its moment is the time the send is
///   reached plus ``RunContext/immediateLocalLead`` (so devices can acknowledge before the
///   fallback check), quiet hours applied as usual.
/// - `delay` is elapsed time (`days` = 86,400 s), not wall-clock days.
/// - Step names are unique across the whole workflow, branches included, because local ids
///   are `<runId>/<stepName>`.
public struct WorkflowDefinition: Sendable, Hashable {
    /// The longest step name a workflow may have, in bytes (so the longest `<runId>/<step>`).
    public static let maxStepNameLength = DefinitionParser.maxStepNameLength

    /// The workflow key (`leg-day`).
    public var key: String
    /// The name of the event that starts a run.
    public var triggerEvent: String
    /// Events that cancel a run, with optional conditions.
    public var cancelOn: [CancelRule] {
        didSet { deviceCancelOn = WorkflowDefinition.deviceNames(of: cancelOn) }
    }
    /// The device's `cancelOn`: names of the rules without `where`, in order, without
    /// repeats (kept in step with ``cancelOn``). Rules with a `where` are decided by the server.
    public private(set) var deviceCancelOn: [String]
    /// The steps, run in order.
    public var steps: [Step]

    /// A definition from its parts; it is not validated. Prefer ``parse(_:)-(JSONValue)``.
    public init(key: String, triggerEvent: String, cancelOn: [CancelRule] = [], steps: [Step]) {
        self.key = key
        self.triggerEvent = triggerEvent
        self.cancelOn = cancelOn
        self.deviceCancelOn = WorkflowDefinition.deviceNames(of: cancelOn)
        self.steps = steps
    }

    /// A `cancelOn` rule: `{"event": name, "where"?: condition}`.
    public struct CancelRule: Sendable, Hashable {
        /// The event name that cancels the run.
        public var event: String
        /// The condition the event must also meet (`where`), evaluated with the run's trigger
        /// event for `$trigger` references. `nil` means every such event cancels, which the
        /// device can decide on its own (device `cancelOn`).
        public var condition: Condition?
    }

    /// Parses and validates a definition from JSON.
    ///
    /// - Throws: ``EngineError`` with code ``EngineError/Code/invalidDefinition`` whose
    ///   ``EngineError/problems`` list every problem, each with its JSON path and an
    ///   actionable sentence (`steps[1].send.deliver: expected "local" or "push", got "loca"`).
    ///   Unknown fields are refused with their path.
    public static func parse(_ json: JSONValue) throws(EngineError) -> WorkflowDefinition {
        var parser = DefinitionParser()
        if let definition = parser.parseWorkflow(json), parser.problems.isEmpty { return definition }
        let count = parser.problems.count
        throw EngineError(code: .invalidDefinition, path: "",
                          message: "the workflow definition has \(count) problem\(count == 1 ? "" : "s")",
                          problems: parser.problems)
    }

    /// Parses and validates a definition from JSON bytes.
    ///
    /// - Throws: ``EngineError/Code/invalidJSON`` when the bytes are not JSON, otherwise as
    ///   ``parse(_:)-(JSONValue)``.
    public static func parse(data: Data) throws(EngineError) -> WorkflowDefinition {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw EngineError(code: .invalidJSON, path: "", message: "the body is not valid JSON; send a JSON object")
        }
        return try parse(json)
    }

    static func deviceNames(of rules: [CancelRule]) -> [String] {
        var names: [String] = []
        for rule in rules where rule.condition == nil && !names.contains(rule.event) {
            names.append(rule.event)
        }
        return names
    }

    /// The step at a path, or `nil` when the path leads nowhere.
    public func step(at path: StepPath) -> Step? {
        guard let list = steps(containing: path), path.index >= 0, path.index < list.count else { return nil }
        return list[path.index]
    }

    /// The list of steps a path indexes into (the top level or a branch arm).
    public func steps(containing path: StepPath) -> [Step]? {
        var list = steps
        var index = path.root
        for (arm, nextIndex) in path.nested {
            guard index >= 0, index < list.count, case .branch(let branch) = list[index].kind else { return nil }
            list = arm == .then ? branch.then : branch.else
            index = nextIndex
        }
        return list
    }

    /// Whether the step at `path` is a `waitUntil` that opens a local window (the next step
    /// in the same list is a local send).
    public func opensLocalWindow(at path: StepPath) -> Bool {
        guard case .waitUntil? = step(at: path)?.kind,
              case .send(let send)? = step(at: path.sibling())?.kind else { return false }
        return send.deliver == .local
    }

    /// Every step, depth first, with its path.
    public var allSteps: [(path: StepPath, step: Step)] {
        var result: [(path: StepPath, step: Step)] = []
        func visit(_ list: [Step], _ makePath: (Int) -> StepPath) {
            for (index, step) in list.enumerated() {
                let path = makePath(index)
                result.append((path, step))
                if case .branch(let branch) = step.kind {
                    visit(branch.then) { path.child(.then, $0) }
                    visit(branch.else) { path.child(.else, $0) }
                }
            }
        }
        visit(steps) { StepPath(root: $0) }
        return result
    }
}
