import CHTTPShims
import CMicroHTTPD
import Foundation

/// libmicrohttpd's access handler: buffers the body, then suspends the connection while the
/// async handler runs, and queues the response when it is resumed.
func httpAccessHandler(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                       _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
                       _ uploadSize: UnsafeMutablePointer<Int>?, _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let cls, let connection, let slot, let uploadSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let raw = slot.pointee else {
        let state = HTTPRequestState()
        slot.pointee = Unmanaged.passRetained(state).toOpaque()
        guard let check = server.configuration.headerCheck else { return MHD_Result.YES }
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                                  headers: collect(connection, .HEADER_KIND))
        state.headers = request.headers  // read once
        switch check(request.method, request.path, request.headers) {
        case .proceed:
            return MHD_Result.YES
        case .answer(let response):
            // A small body is read and dropped so the connection stays open for the client's
            // next request (a flood of refused requests must not become a flood of new
            // connections); a large or unknown-length one is refused at once and the connection closed.
            guard let length = request.headers["content-length"].flatMap(Int.init), length <= smallBodyBytes,
                  request.headers["transfer-encoding"] == nil else {
                return refuse(state, request, response, on: connection)
            }
            state.withLock { $0.request = request; $0.refusal = response }
            return MHD_Result.YES
        case .verify(let verification):
            // Suspended before any of the body is read.
            state.withLock { $0.request = request; $0.verifying = true }
            server.lock.lock(); server.inFlight += 1; server.lock.unlock()
            server.suspend(connection, for: state)
            Task {
                let refusal = await verification()
                state.withLock { if $0.refusal == nil { $0.refusal = refusal } }
                server.lock.withLock { server.inFlight -= 1 }
                server.resume(state)
            }
            return MHD_Result.YES
        }
    }
    let state = Unmanaged<HTTPRequestState>.fromOpaque(raw).takeUnretainedValue()
    server.tookBack(state)
    if state.refusedEarly {
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    let (refusal, verified) = state.withLock { state in
        defer { state.verifying = false }
        return (state.refusal, state.verifying)
    }
    if verified && uploadSize.pointee == 0 {
        // libmicrohttpd 0.9.75 repeats the first call after a connection suspended in it is
        // resumed, still before the body: a refusal goes out now and the body is never read.
        guard let refusal, let request = state.request else { return MHD_Result.YES }
        return refuse(state, request, refusal, on: connection)
    }
    // Otherwise (a library that goes straight on to the body) what arrives of a refused
    // request is dropped unbuffered and the refusal goes out at the last call.
    if uploadSize.pointee > 0 {
        if refusal == nil, !state.tooLarge, let uploadData {
            if state.body.count + uploadSize.pointee > server.configuration.maxBodyBytes {
                state.tooLarge = true
                state.body = Data()
            } else {
                state.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: uploadSize.pointee)
            }
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    if let refusal, let request = state.request { return refuse(state, request, refusal, on: connection) }
    state.lock.lock()
    let ready = state.response
    let started = state.started
    state.started = true
    state.lock.unlock()
    if let ready { return queue(ready, on: connection, requestId: state.request?.requestId) }
    if started { return MHD_Result.YES }
    bk_mhd_request_received(server.shim, connection)  // all in: the request deadline no longer applies

    var request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                              headers: state.headers ?? collect(connection, .HEADER_KIND))
    // Arguments arrive still percent-encoded (see the shim's unescape callback).
    request.query = collect(connection, .GET_ARGUMENT_KIND).reduce(into: [:]) { decoded, pair in
        let decode = { (text: String) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text }
        decoded[decode(pair.key)] = decode(pair.value)
    }
    if let id = request.header("x-request-id"), !id.isEmpty, id.count <= 128 { request.requestId = id }
    request.body = state.body
    state.request = request
    if state.tooLarge {
        let limit = server.configuration.maxBodyBytes
        let error = HTTPError(status: 413, code: "body_too_large", message: "the body is larger than \(limit) bytes; send smaller batches")
        state.response = error.response
        return queue(error.response, on: connection, requestId: request.requestId)
    }
    if server.isStopping {
        let closing = HTTPError(status: 503, code: "shutting_down", message: "the server is stopping; retry on another instance").response
        state.response = closing
        return queue(closing, on: connection, requestId: request.requestId)
    }
    server.lock.lock(); server.inFlight += 1; server.lock.unlock()
    server.suspend(connection, for: state)
    let handler = server.handler
    Task {
        let response = await handler(request)
        state.withLock { if $0.response == nil { $0.response = response } }
        server.resume(state)
    }
    return MHD_Result.YES
}

/// Called when libmicrohttpd is done with a request: logs it and frees its state.
func httpCompletedHandler(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                          _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode) {
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if let connection { bk_mhd_request_done(server.shim, connection) }  // the next request's deadline starts now
    guard let slot, let raw = slot.pointee else { return }
    let state = Unmanaged<HTTPRequestState>.takeRetainedValueAndRelease(raw)
    slot.pointee = nil
    server.tookBack(state)
    if state.started, state.request != nil, !state.tooLarge, !state.refusedEarly {
        server.lock.lock(); server.inFlight -= 1; server.lock.unlock()
    }
    if let request = state.request, let onComplete = server.onComplete {
        onComplete(HTTPServer.Completion(method: request.method, path: request.path, status: state.response?.status ?? 0,
                                         seconds: Date().timeIntervalSince(state.startedAt), requestId: request.requestId))
    }
}

/// Bodies up to this size are drained (not buffered) after a refusal from the headers, keeping
/// the connection alive.
let smallBodyBytes = 64 * 1024

/// Answers from the headers alone (or their verification); the body, if any, is never buffered.
private func refuse(_ state: HTTPRequestState, _ request: HTTPRequest, _ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    state.withLock {
        $0.request = request
        $0.response = response
        $0.started = true
        $0.refusedEarly = true
    }
    return queue(response, on: connection, requestId: nil)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, requestId: String?) -> MHD_Result {
    let created: OpaquePointer? = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return MHD_Result.NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers { MHD_add_response_header(created, name, value) }
    if let requestId { MHD_add_response_header(created, "X-Request-Id", requestId) }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

private func collect(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    let box = DictionaryBox()
    let context = Unmanaged.passUnretained(box).toOpaque()
    _ = MHD_get_connection_values(connection, kind, httpCollectValue, context)
    return box.values
}

func httpCollectValue(_ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
                      _ value: UnsafePointer<CChar>?) -> MHD_Result {
    guard let cls, let key else { return MHD_Result.YES }
    let box = Unmanaged<DictionaryBox>.fromOpaque(cls).takeUnretainedValue()
    // Header names are case-insensitive (kept lowercased); query parameter names are not.
    let name = String(cString: key)
    box.values[kind == .HEADER_KIND ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
    return MHD_Result.YES
}

final class DictionaryBox {
    var values: [String: String] = [:]
}

/// Carries the connection pointer into the handler task (libmicrohttpd allows resuming from any thread).
struct ConnectionBox: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}

extension Unmanaged {
    static func takeRetainedValueAndRelease(_ raw: UnsafeMutableRawPointer) -> Instance {
        Unmanaged<Instance>.fromOpaque(raw).takeRetainedValue()
    }
}
