import BuzzEngine
import BuzzKitWire
import BuzzServerCore
import Foundation

/// A pipeline message read and written by hand, in exactly the form Swift's synthesized
/// `Codable` gives the enum (`{"<case>": {<associated values by label>}}`, run ids as
/// upper-case UUID text), so either side may be the older code during a rolling deploy.
extension PipelineMessage: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        guard case .object(let cases) = json, cases.count == 1, let (name, body) = cases.first else {
            throw JSONFields.Failure(path: path, reason: "expected an object with one case")
        }
        let fields = try JSONFields(body, path: path.isEmpty ? name : path + "." + name)
        let tenantId = try fields.string("tenantId")
        let runText = try fields.string("runId")
        guard let runId = UUID(uuidString: runText) else { throw JSONFields.Failure(path: fields.path + ".runId", reason: "\"\(runText)\" is not a UUID") }
        switch name {
        case "timer":
            var window: Window?
            if let value = fields.value("window"), value != .null {
                let inner = try JSONFields(value, path: fields.path + ".window")
                window = Window(subscriberId: try inner.string("subscriberId"), localId: try inner.string("localId"))
            }
            self = .timer(tenantId: tenantId, runId: runId, timer: try fields.read("timer"), window: window)
        case "sendPlan": self = .sendPlan(tenantId: tenantId, runId: runId, subscriberId: try fields.string("subscriberId"), delivery: try fields.read("delivery"))
        case "sendAlert":
            self = .sendAlert(tenantId: tenantId, runId: runId, subscriberId: try fields.string("subscriberId"), fallback: try fields.bool("fallback"),
                              delivery: try fields.read("delivery"))
        case "sendCancel":
            self = .sendCancel(tenantId: tenantId, runId: runId, subscriberId: try fields.string("subscriberId"), delivery: try fields.read("delivery"),
                               recipients: fields.value("recipients") == nil ? nil : try fields.readArray("recipients"))
        default: throw JSONFields.Failure(path: path, reason: "unknown message kind \"\(name)\"")
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        func head(_ name: StaticString, _ tenantId: String, _ runId: UUID) {
            writer.key(literal: name)
            writer.beginObject()
            writer.member("tenantId", tenantId)
            writer.member("runId", runId.uuidString)
        }
        switch self {
        case .timer(let tenantId, let runId, let timer, let window):
            head("timer", tenantId, runId)
            writer.member("timer", timer)
            if let window {
                writer.key(literal: "window")
                writer.beginObject()
                writer.member("subscriberId", window.subscriberId)
                writer.member("localId", window.localId)
                writer.endObject()
            }
        case .sendPlan(let tenantId, let runId, let subscriberId, let delivery):
            head("sendPlan", tenantId, runId)
            writer.member("subscriberId", subscriberId)
            writer.member("delivery", delivery)
        case .sendAlert(let tenantId, let runId, let subscriberId, let fallback, let delivery):
            head("sendAlert", tenantId, runId)
            writer.member("subscriberId", subscriberId)
            writer.member("fallback", fallback)
            writer.member("delivery", delivery)
        case .sendCancel(let tenantId, let runId, let subscriberId, let delivery, let recipients):
            head("sendCancel", tenantId, runId)
            writer.member("subscriberId", subscriberId)
            writer.member("delivery", delivery)
            if let recipients {
                writer.key(literal: "recipients")
                writer.beginArray()
                for recipient in recipients { recipient.write(to: &writer) }
                writer.endArray()
            }
        }
        writer.endObject()
        writer.endObject()
    }
}
