import COpenSSL
import Foundation

/// Hashes, MACs and random tokens for keys and subscriber tokens (OpenSSL's libcrypto).
public enum Digest {
    /// Lower-case hex SHA-256 of `text`'s UTF-8 bytes.
    public static func sha256Hex(_ text: String) -> String {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        _ = SHA256(bytes, bytes.count, &out)
        return hex(out)
    }

    /// Lower-case hex HMAC-SHA256(`key`, `message`).
    public static func hmacSHA256Hex(key: String, message: String) -> String {
        let keyBytes = Array(key.utf8)
        let messageBytes = Array(message.utf8)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), keyBytes, Int32(keyBytes.count), messageBytes, messageBytes.count, &out, &length)
        return hex(Array(out.prefix(Int(length))))
    }

    /// Compares two strings in time independent of where they differ.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return x.withUnsafeBytes { xp in y.withUnsafeBytes { yp in CRYPTO_memcmp(xp.baseAddress, yp.baseAddress, x.count) == 0 } }
    }

    /// `byteCount` random bytes from the system's secure generator, hex encoded.
    public static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
