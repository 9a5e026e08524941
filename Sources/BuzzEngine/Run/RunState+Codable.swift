import BuzzKitWire
import Foundation

/// Stored form of a run (`{"version": 1, …}`), independent of any encoder's date or key
/// strategy: instants are RFC 3339 strings with millisecond precision, the definition is
/// its own JSON (validated again on decode), step paths are their text.
extension RunState: Codable {
    /// The stored form's version.
    public static let storageVersion = 1

    /// Encoder `userInfo` key: `true` leaves the workflow snapshot out of the stored form,
    /// for stores that keep definitions by key and version already.
    public static let omitWorkflowKey = CodingUserInfoKey(rawValue: "buzzkit.runState.omitWorkflow")!
    /// Decoder `userInfo` key: the ``WorkflowDefinition`` to use when the stored form has none.
    public static let workflowKey = CodingUserInfoKey(rawValue: "buzzkit.runState.workflow")!

    /// Decodes the stored form (``init(json:workflow:)``; the workflow from `workflowKey` when
    /// the form has none).
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(json: try JSONValue(from: decoder), workflow: decoder.userInfo[RunState.workflowKey] as? WorkflowDefinition)
        } catch let failure as JSONFields.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: failure.description))
        }
    }

    /// Encodes the stored form (``write(to:includingWorkflow:)``; without the workflow when
    /// `omitWorkflowKey` is true).
    public func encode(to encoder: any Encoder) throws {
        var writer = JSONWriter(capacity: 2048)
        write(to: &writer, includingWorkflow: encoder.userInfo[RunState.omitWorkflowKey] as? Bool != true)
        try JSONParser.parse(Data(writer.bytes)).encode(to: encoder)
    }
}
