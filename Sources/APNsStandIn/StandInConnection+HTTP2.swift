import CNGHTTP2
import Foundation

extension StandInConnection {
    /// Creates the nghttp2 server session and queues the server's SETTINGS.
    func startSession() throws {
        var callbacks: OpaquePointer?
        try APNsStandInError.checkNGHTTP2(Int(nghttp2_session_callbacks_new(&callbacks)), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, standInBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, standInHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, standInDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, standInFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, standInStreamClosed)
        // libcurl 7.88 ends every finished stream with RST_STREAM(STREAM_CLOSED). nghttp2's
        // "rapid reset" guard (Debian's backport: 1000 resets, then 33/s) would tear the
        // connection down after ~1000 pushes, which Apple does not do; allow far more.
        var option: OpaquePointer?
        try APNsStandInError.checkNGHTTP2(Int(nghttp2_option_new(&option)), "nghttp2_option_new")
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_stream_reset_rate_limit(option, 1_000_000, 1_000_000)
        var created: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        try APNsStandInError.checkNGHTTP2(Int(nghttp2_session_server_new2(&created, callbacks, user, option)),
                                          "nghttp2_session_server_new2")
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                   value: UInt32(max(1, server.configuration.maxConcurrentStreams))),
        ]
        try APNsStandInError.checkNGHTTP2(Int(nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue),
                                                                      &settings, settings.count)),
                                          "nghttp2_submit_settings")
    }

    /// A request's last frame arrived (or its body grew too large): judge it and answer,
    /// now or after the injected latency.
    func requestComplete(_ stream: StandInStream) {
        guard !stream.answered else { return }
        stream.answered = true
        let (answer, latency) = server.answer(stream, connection: number)
        if latency > 0 {
            let due = ContinuousClock.now + .milliseconds(Int64(latency * 1000))
            let index = delayedAnswers.firstIndex { $0.due > due } ?? delayedAnswers.endIndex
            delayedAnswers.insert((due, stream.id, answer), at: index)
        } else {
            submit(answer, on: stream.id)
        }
    }

    /// Sends the delayed answers whose time has come.
    func submitDueAnswers() {
        let now = ContinuousClock.now
        while let first = delayedAnswers.first, first.due <= now {
            delayedAnswers.removeFirst()
            submit(first.answer, on: first.stream)
        }
    }

    /// Milliseconds until the next delayed answer (at most 1 s, so a stop is noticed).
    func delayedAnswerTimeout() -> Int32 {
        guard let next = delayedAnswers.first else { return 1000 }
        let left = next.due - ContinuousClock.now
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(min(1000, max(0, milliseconds + 1)))
    }

    /// Submits HEADERS (`:status`, `apns-id`, …) and, for errors, the JSON body. A stream the
    /// client already reset is skipped.
    func submit(_ answer: StandInAnswer, on streamID: Int32) {
        guard let session, let stream = streams[streamID] else { return }
        stream.responseBody = answer.body
        stream.responseOffset = 0
        var fields = [(":status", String(answer.status))] + answer.headers
        if !stream.responseBody.isEmpty { fields.append(("content-length", String(stream.responseBody.count))) }
        let buffers = fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        var storage: [UnsafeMutablePointer<UInt8>] = []
        defer { storage.forEach { $0.deallocate() } }
        func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
            pointer.initialize(from: bytes, count: bytes.count)
            storage.append(pointer)
            return pointer
        }
        var nva = buffers.map { name, value in
            nghttp2_nv(name: copy(name), value: copy(value), namelen: name.count, valuelen: value.count,
                       flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        if stream.responseBody.isEmpty {
            _ = nghttp2_submit_response(session, streamID, &nva, nva.count, nil)
        } else {
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: standInReadBody)
            _ = nghttp2_submit_response(session, streamID, &nva, nva.count, &provider)
        }
    }

    /// Copies the next piece of a stream's answer body for nghttp2.
    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                  flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            return 0
        }
        let remaining = stream.responseBody.count - stream.responseOffset
        let count = min(length, remaining)
        if count > 0 {
            let start = stream.responseBody.startIndex + stream.responseOffset
            stream.responseBody.copyBytes(to: buffer, from: start..<(start + count))
            stream.responseOffset += count
        }
        if stream.responseOffset >= stream.responseBody.count {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
        }
        return count
    }
}
