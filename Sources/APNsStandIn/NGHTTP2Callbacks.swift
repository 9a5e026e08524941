import CNGHTTP2
import Foundation

// libnghttp2's callbacks for the stand-in's server sessions. They are plain C functions; the
// user-data pointer is the unretained `StandInConnection`, which owns the session and outlives
// it. They run on that connection's thread, inside `nghttp2_session_mem_recv`/`_mem_send`.

private func connection(_ user: UnsafeMutableRawPointer?) -> StandInConnection? {
    user.map { Unmanaged<StandInConnection>.fromOpaque($0).takeUnretainedValue() }
}

/// A request's HEADERS begin: a new stream.
func standInBeginHeaders(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                         _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, let owner = connection(user) else { return 0 }
    guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
          frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
    let id = frame.pointee.hd.stream_id
    owner.streams[id] = StandInStream(id: id)
    return 0
}

/// One header field (nghttp2 already checked its syntax); too many or too large resets the stream.
func standInHeader(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                   _ name: UnsafePointer<UInt8>?, _ nameLength: Int, _ value: UnsafePointer<UInt8>?,
                   _ valueLength: Int, _ flags: UInt8, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, let owner = connection(user),
          let stream = owner.streams[frame.pointee.hd.stream_id] else { return 0 }
    let fieldName = String(decoding: UnsafeBufferPointer(start: name, count: name == nil ? 0 : nameLength), as: UTF8.self)
    let fieldValue = String(decoding: UnsafeBufferPointer(start: value, count: value == nil ? 0 : valueLength),
                            as: UTF8.self)
    return stream.addHeader(name: fieldName, value: fieldValue) ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
}

/// Body bytes; a body far over the limit is answered 413 without waiting for its end.
func standInDataChunk(_ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?,
                      _ length: Int, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let owner = connection(user), let stream = owner.streams[streamID], !stream.answered else { return 0 }
    stream.addBody(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length))
    if stream.bodySize > StandInStream.abandonBodyBytes { owner.requestComplete(stream) }
    return 0
}

/// A whole frame arrived: END_STREAM on HEADERS or DATA completes the request.
func standInFrameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                          _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, let owner = connection(user) else { return 0 }
    let type = frame.pointee.hd.type
    guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
    guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
          let stream = owner.streams[frame.pointee.hd.stream_id] else { return 0 }
    owner.requestComplete(stream)
    return 0
}

/// The stream is over (answered, reset, or the connection is closing).
func standInStreamClosed(_ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32,
                         _ user: UnsafeMutableRawPointer?) -> Int32 {
    connection(user)?.streams.removeValue(forKey: streamID)
    return 0
}

/// The data provider of an answer body.
func standInReadBody(_ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?,
                     _ length: Int, _ flags: UnsafeMutablePointer<UInt32>?,
                     _ source: UnsafeMutablePointer<nghttp2_data_source>?, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let flags, let owner = connection(user) else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    return owner.readBody(streamID: streamID, into: buffer, length: length, flags: flags)
}
