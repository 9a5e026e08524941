import Foundation

/// One HTTP/2 request on a stand-in connection: what arrived so far, and the answer being sent.
final class StandInStream {
    /// Headers beyond these limits reset the stream (a client cannot grow memory without bound).
    static let maximumHeaderCount = 64
    static let maximumHeaderBytes = 16 * 1024
    /// Body bytes kept (enough to judge APNs' 4096-byte limit); more are only counted.
    static let keptBodyBytes = 4097
    /// Body size at which the stand-in answers 413 without waiting for the rest.
    static let abandonBodyBytes = 256 * 1024

    let id: Int32
    private(set) var headers: [(name: String, value: String)] = []
    private var headerBytes = 0
    private(set) var body = Data()
    private(set) var bodySize = 0
    /// True once an answer was submitted (later frames of the stream are ignored).
    var answered = false
    /// The answer's body and how much of it nghttp2 has taken.
    var responseBody = Data()
    var responseOffset = 0

    init(id: Int32) {
        self.id = id
    }

    /// Adds a header field; `false` when the stream went over the limits.
    func addHeader(name: String, value: String) -> Bool {
        headerBytes += name.utf8.count + value.utf8.count + 32
        guard headers.count < Self.maximumHeaderCount, headerBytes <= Self.maximumHeaderBytes else { return false }
        headers.append((name, value))
        return true
    }

    /// Adds body bytes (keeping at most ``keptBodyBytes``).
    func addBody(_ bytes: UnsafeRawBufferPointer) {
        bodySize += bytes.count
        let room = Self.keptBodyBytes - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    /// Every value of a header (names are lowercase in HTTP/2).
    func values(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }

    /// The only value of a header, `nil` when absent.
    func value(_ name: String) -> String? {
        headers.last { $0.name == name }?.value
    }

    /// The headers as a dictionary (the last of repeats wins).
    var headerDictionary: [String: String] {
        var result: [String: String] = [:]
        for header in headers { result[header.name] = header.value }
        return result
    }
}
