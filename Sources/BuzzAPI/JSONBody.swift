import BuzzKitWire
import BuzzServer
import Foundation
import HTTPServer

/// Strict reading of a JSON request body: every problem becomes a 400 that names the field.
struct JSONBody {
    let value: JSONValue

    /// Parses the body: invalid UTF-8, malformed JSON and an empty body are refused.
    init(_ request: HTTPRequest) throws {
        guard !request.body.isEmpty else {
            throw HTTPError.badRequest("the request needs a JSON body", code: "empty_body")
        }
        guard String(data: request.body, encoding: .utf8) != nil else {
            throw HTTPError.badRequest("the body is not valid UTF-8", code: "invalid_utf8")
        }
        do {
            value = try JSONParser.parse(request.body)
        } catch let failure as JSONParser.Failure where failure.isNUL {
            throw HTTPError.badRequest("the body holds a NUL character (\\u0000) at byte \(failure.offset); it is not accepted in any string or key",
                                       code: "invalid_value")
        } catch {
            throw HTTPError.badRequest("the body is not valid JSON; check quotes, commas and brackets", code: "invalid_json")
        }
    }

    init(value: JSONValue) { self.value = value }

    /// The body as an object whose keys are all in `allowed`.
    func object(_ path: String = "", allowed: Set<String>) throws -> InputFields {
        try InputFields(value, path: path, allowed: allowed)
    }
}
