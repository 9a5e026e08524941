import CCurl
import CPushShims
import Foundation

/// One request in flight on the multi loop: its easy handle's per-request options, the
/// response being collected, and the completion to call. Used only on the loop's thread.
final class CurlTransfer {
    /// Answers larger than this are cut (APNs error bodies are tiny; this bounds a bad peer).
    static let maximumBodySize = 64 * 1024

    let easy: UnsafeMutableRawPointer
    let request: HTTPRequest
    let completion: @Sendable (HTTPResponse) -> Void
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body = Data()
    private var headers: [String: String] = [:]

    init(easy: UnsafeMutableRawPointer, request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        self.easy = easy
        self.request = request
        self.completion = completion
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Sets the per-request options on the (possibly reused) easy handle. The handle-wide
    /// options (HTTP/2, timeouts, CA) were set once by the loop.
    func configure() throws {
        for line in request.curlHeaderLines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw PushDeliveryError(.curl, context: "curl_slist_append", message: "out of memory")
            }
            headerList = appended
        }
        let user = Unmanaged.passUnretained(self).toOpaque()
        try request.url.withCString { url in
            try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_URL, url), "CURLOPT_URL")
        }
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList),
                                        "CURLOPT_HTTPHEADER")
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                                                                  curl_off_t(request.body.count)),
                                        "CURLOPT_POSTFIELDSIZE_LARGE")
        // COPYPOSTFIELDS copies the body (so it needs no lifetime here) and makes the request a POST.
        try request.body.withUnsafeBytes { bytes in
            let pointer = bytes.count == 0 ? UnsafeRawPointer(("" as StaticString).utf8Start) : bytes.baseAddress
            try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, pointer),
                                            "CURLOPT_COPYPOSTFIELDS")
        }
        if request.method == "POST" {
            try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil),
                                            "CURLOPT_CUSTOMREQUEST")
        } else {
            try request.method.withCString { method in
                try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, method),
                                                "CURLOPT_CUSTOMREQUEST")
            }
        }
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer),
                                        "CURLOPT_ERRORBUFFER")
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody),
                                        "CURLOPT_WRITEFUNCTION")
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, user), "CURLOPT_WRITEDATA")
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader),
                                        "CURLOPT_HEADERFUNCTION")
        try PushDeliveryError.checkCurl(bk_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, user), "CURLOPT_HEADERDATA")
    }

    /// Called by the body callback.
    func appendBody(_ bytes: UnsafeRawBufferPointer) {
        let room = Self.maximumBodySize - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    /// Called by the header callback: `HTTP/2 200` starts a new response, `name: value` adds a
    /// field. Works on bytes: this runs for every header of every answer.
    func appendHeaderLine(_ raw: UnsafeRawBufferPointer) {
        let bytes = raw.bindMemory(to: UInt8.self)
        if bytes.starts(with: [0x48, 0x54, 0x54, 0x50, 0x2F]) {  // "HTTP/"
            headers = [:]
            return
        }
        guard headers.count < 64, let colon = bytes.firstIndex(of: 0x3A) else { return }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = colon + 1
        var end = bytes.endIndex
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self).lowercased()
        headers[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// The response once libcurl reports the transfer done with `result`.
    func response(result: CURLcode) -> HTTPResponse {
        var connects = 0
        if bk_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) != CURLE_OK { connects = 0 }
        guard result == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            var failed = HTTPResponse.failure(PushDeliveryError.curlFailureReason(result, detail: detail))
            failed.newConnections = connects
            return failed
        }
        var status = 0
        if bk_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK { status = 0 }
        return HTTPResponse(status: status, headers: headers, body: body, transportError: nil, newConnections: connects)
    }
}

// libcurl's callbacks are plain C functions; the user-data pointer is the unretained
// `CurlTransfer`, which the multi loop keeps alive in its table while the transfer runs.

/// `CURLOPT_WRITEFUNCTION`: appends body bytes to the transfer.
func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                   _ user: UnsafeMutableRawPointer?) -> Int {
    curlHand(data, size * count, user) { $0.appendBody($1) }
}

/// `CURLOPT_HEADERFUNCTION`: one header line at a time, status lines included.
func curlWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                     _ user: UnsafeMutableRawPointer?) -> Int {
    curlHand(data, size * count, user) { $0.appendHeaderLine($1) }
}

/// Hands `length` bytes to the transfer behind `user`; returns `length` (all taken).
private func curlHand(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, _ user: UnsafeMutableRawPointer?,
                      _ take: (CurlTransfer, UnsafeRawBufferPointer) -> Void) -> Int {
    guard let data, let user else { return length }
    take(Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue(), UnsafeRawBufferPointer(start: data, count: length))
    return length
}
