import BuzzCrypto
import COpenSSL
import CPushShims
import Foundation

/// An OpenSSL memory BIO, to read PEM text from Swift strings and write PEM back.
final class MemoryBIO {
    let pointer: OpaquePointer

    /// An empty BIO to write into.
    init() throws {
        guard let bio = BIO_new(BIO_s_mem()) else { throw APNsStandInError.openSSL("BIO_new") }
        pointer = bio
    }

    /// A BIO holding a copy of `text`, to read from.
    convenience init(text: String) throws {
        try self.init()
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }
        let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(bytes.count) else { throw APNsStandInError.openSSL("BIO_write") }
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written so far, as text.
    func text() -> String {
        var data: UnsafePointer<CChar>?
        let length = bk_bio_mem_contents(pointer, &data)
        guard length > 0, let data else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
