import BuzzKitWire
import Foundation

// Fast readers and writers of the deliveries a pipeline message carries, in their `Codable`
// form (tests compare the two).

extension JSONWriter {
    /// The members every delivery ends with, `headers`, `payload` and `body`, and the end of
    /// its object.
    fileprivate mutating func writePush(headers: APNsHeaders, payload: some JSONWritable, body: String) {
        member("headers", headers)
        member("payload", payload)
        member("body", body)
        endObject()
    }
}

extension LocalPlanDelivery: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        runId = try fields.string("runId")
        stepName = try fields.string("stepName")
        localId = try fields.string("localId")
        messageId = try fields.string("messageId")
        moment = try fields.instant("moment")
        headers = try fields.read("headers")
        payload = try fields.read("payload")
        body = try fields.string("body")
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("runId", runId)
        writer.member("stepName", stepName)
        writer.member("localId", localId)
        writer.member("messageId", messageId)
        writer.member("moment", instant: moment)
        writer.writePush(headers: headers, payload: payload, body: body)
    }
}

extension AlertDelivery: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        runId = try fields.string("runId")
        stepName = try fields.string("stepName")
        localId = try fields.optionalString("localId")
        messageId = try fields.string("messageId")
        idempotencyKey = try fields.string("idempotencyKey")
        reason = try fields.optionalString("reason")
        headers = try fields.read("headers")
        payload = try fields.read("payload")
        body = try fields.string("body")
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("runId", runId)
        writer.member("stepName", stepName)
        if let localId { writer.member("localId", localId) }
        writer.member("messageId", messageId)
        writer.member("idempotencyKey", idempotencyKey)
        if let reason { writer.member("reason", reason) }
        writer.writePush(headers: headers, payload: payload, body: body)
    }
}

extension CancelDelivery: JSONReadable, JSONWritable {
    public init(json: JSONValue, path: String) throws {
        let fields = try JSONFields(json, path: path)
        runId = try fields.string("runId")
        headers = try fields.read("headers")
        payload = try fields.read("payload")
        body = try fields.string("body")
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("runId", runId)
        writer.writePush(headers: headers, payload: payload, body: body)
    }
}
